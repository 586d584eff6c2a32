import { Counter, Gauge } from 'prom-client';
import type { SessionEventBus } from '../events/session-event-bus.js';
import type { PermissionBroker } from '../permissions/permission-broker.js';
import type { SessionRegistry } from '../sessions/session-registry.js';
import { TURNS_CHANNELS } from '../telemetry/turns-channels.js';
import type { TurnWaitService } from '../turns/wait/turn-wait.service.js';
import type { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import type { MetricSeries } from './metric-series.js';

/** The live services a scrape reads its gauges from. */
export interface ServiceGauges {
  registry: SessionRegistry;
  waits: TurnWaitService;
  events: SessionEventBus;
  permissions: PermissionBroker;
  webhooks: WebhookDispatcher;
}

/** The series of the daemon's services: sessions, held requests and streams, agent processes, recording, approvals, webhooks. */
export function registerServiceSeries(series: MetricSeries, { registry, waits, events, permissions, webhooks }: ServiceGauges): void {
  const { registers } = series;
  series.gauge('turns_sessions_live', 'Live sessions', () => registry.size);
  const reaped = new Counter({
    name: 'turns_sessions_reaped_total',
    help: 'Live sessions closed for being idle longer than TURNS_SESSION_IDLE_TIMEOUT_MS',
    registers,
  });
  series.on(TURNS_CHANNELS.sessionReaped, () => reaped.inc());
  series.gauge('turns_waiters', 'Turn requests being held (waitMs, Prefer: wait)', () => waits.waiting);
  series.gauge('turns_sse_streams', 'Open SSE event streams', () => events.openStreamCount);

  const agents = new Counter({
    name: 'turns_agent_process_events_total',
    help: 'Agent processes started, exited, or failed to start',
    labelNames: ['event'],
    registers,
  });
  series.on(TURNS_CHANNELS.agentProcess, ({ event }) => agents.labels(event).inc());
  const appendFailures = new Counter({
    name: 'turns_recorder_append_failures_total',
    help: 'Transcript appends that failed (the turn is still answered from memory)',
    registers,
  });
  series.on(TURNS_CHANNELS.recorderAppendFailed, () => appendFailures.inc());

  const decisions = new Counter({
    name: 'turns_permission_requests_total',
    help: "Agents' requests for approval of a tool call, by outcome and by who decided (client, policy, timeout, turn_end, limit, client_left)",
    labelNames: ['outcome', 'decided_by'],
    registers,
  });
  series.on(TURNS_CHANNELS.permissionDecided, ({ outcome, decidedBy }) => decisions.labels(outcome, decidedBy).inc());
  series.gauge(
    'turns_permission_requests_pending',
    "Agents' requests for approval waiting for an answer now",
    () => permissions.pendingCount,
  );

  const attempts = new Counter({
    name: 'turns_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: delivered, retry (failed, tried again later), failed (given up)',
    labelNames: ['outcome'],
    registers,
  });
  series.on(TURNS_CHANNELS.webhookAttempt, ({ outcome }) => attempts.labels(outcome).inc());
  new Gauge({
    name: 'turns_webhook_outbox_depth',
    help: 'Webhook deliveries pending in the durable outbox',
    registers,
    async collect() {
      this.set(await webhooks.outboxDepth());
    },
  });
}
