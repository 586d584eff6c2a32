import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { PromptBridge } from '../bridge/prompt-bridge.js';
import { SessionEventBus } from '../events/session-event-bus.js';
import { PermissionBroker } from '../permissions/permission-broker.js';
import { SessionOwnership } from '../sessions/session-ownership.js';
import { SessionRegistry } from '../sessions/session-registry.js';
import { TURNS_CHANNELS, type PollSource, type SettledState } from '../telemetry/turns-channels.js';
import { TurnWaitService } from '../turns/wait/turn-wait.service.js';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import { httpLabels } from './http-labels.js';
import { registerTokenCounter } from './token-counter.js';
import { RequestHistogram, type HistogramSeries } from './request-histogram.js';

/**
 * prom-client's gauges of this name end in `_total`, which Prometheus keeps
 * for counters (`promtool check metrics` rejects them); the same counts are
 * in `nodejs_active_handles` etc. by type.
 */
const MISNAMED_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

const HTTP_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const SCAN_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const PROMPT_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 1800, 3600];
const POLL_SOURCES: readonly PollSource[] = ['memory', 'scan', 'not_found', 'not_modified'];
const SETTLED_STATES: readonly SettledState[] = ['completed', 'cancelled', 'error'];

type Child = { inc(value?: number): void };

/**
 * The daemon's Prometheus series (docs/operating.md), in a registry of its own.
 * Events arrive on the telemetry channels; gauges are read from the live
 * services when scraped, so the request path only increments pre-bound
 * children. HTTP series are labelled by route template, never by path, so
 * their number is bounded whatever ids clients send.
 */
@Injectable()
export class TurnsMetrics implements OnModuleDestroy {
  readonly registry = new Registry();
  private readonly unsubscribe: Array<() => void> = [];
  private readonly httpDuration: RequestHistogram;
  private readonly httpChildren = new Map<string, HistogramSeries>();

  constructor(
    registry: SessionRegistry,
    bridge: PromptBridge,
    waits: TurnWaitService,
    events: SessionEventBus,
    ownership: SessionOwnership,
    webhooks: WebhookDispatcher,
    permissions: PermissionBroker,
  ) {
    const register = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    for (const name of MISNAMED_DEFAULTS) this.registry.removeSingleMetric(name);

    this.httpDuration = new RequestHistogram(
      'turns_http_request_duration_seconds',
      'HTTP requests by method, route template and status: time to the last byte',
      HTTP_BUCKETS,
      this.registry,
    );

    const polls = new Counter({
      name: 'turns_turn_polls_total',
      help: 'Turn polls answered, by where the answer came from',
      labelNames: ['source'],
      registers: register,
    });
    const bySource = new Map(POLL_SOURCES.map((source) => [source, polls.labels(source) as Child]));
    this.on(TURNS_CHANNELS.poll, (source) => bySource.get(source)?.inc());

    const scanSeconds = new Histogram({
      name: 'turns_transcript_scan_duration_seconds',
      help: 'Transcript scans (a poll not answered from memory)',
      buckets: SCAN_BUCKETS,
      registers: register,
    });
    const scanBytes = new Counter({
      name: 'turns_transcript_scan_read_bytes_total',
      help: 'Bytes read from transcripts by scans',
      registers: register,
    });
    this.on(TURNS_CHANNELS.transcriptScan, ({ durationMs, bytesRead }) => {
      scanSeconds.observe(durationMs / 1_000);
      scanBytes.inc(bytesRead);
    });

    const admitted = new Counter({
      name: 'turns_prompts_admitted_total',
      help: 'Prompts admitted (acknowledged, or withdrawn: see turns_prompts_withdrawn_total)',
      registers: register,
    });
    this.on(TURNS_CHANNELS.promptAdmitted, () => admitted.inc());
    const withdrawn = new Counter({
      name: 'turns_prompts_withdrawn_total',
      help: 'Prompts admitted, then taken back unacknowledged (503: their ledger record was refused or failed)',
      registers: register,
    });
    this.on(TURNS_CHANNELS.promptWithdrawn, () => withdrawn.inc());
    const settled = new Counter({
      name: 'turns_prompts_settled_total',
      help: 'Prompts settled, by terminal state',
      labelNames: ['state'],
      registers: register,
    });
    const byState = new Map(SETTLED_STATES.map((state) => [state, settled.labels(state) as Child]));
    const queueWait = new Histogram({
      name: 'turns_prompt_queue_wait_seconds',
      help: 'Time from admission to dispatch into the session',
      buckets: PROMPT_BUCKETS,
      registers: register,
    });
    const run = new Histogram({
      name: 'turns_prompt_run_duration_seconds',
      help: 'Time from dispatch to the terminal state',
      buckets: PROMPT_BUCKETS,
      registers: register,
    });
    this.on(TURNS_CHANNELS.promptStarted, ({ queueWaitMs }) => queueWait.observe(queueWaitMs / 1_000));
    this.on(TURNS_CHANNELS.promptSettled, ({ state, runMs }) => {
      byState.get(state)?.inc();
      if (runMs !== undefined) run.observe(runMs / 1_000);
    });

    this.unsubscribe.push(registerTokenCounter(this.registry));
    new Gauge({
      name: 'turns_prompts',
      help: 'Prompts queued and running now',
      labelNames: ['state'],
      registers: register,
      collect() {
        const counts = bridge.promptCounts();
        this.labels('queued').set(counts.queued);
        this.labels('running').set(counts.running);
      },
    });
    gauge('turns_sessions_live', 'Live sessions', () => registry.size);
    const reaped = new Counter({
      name: 'turns_sessions_reaped_total',
      help: 'Live sessions closed for being idle longer than TURNS_SESSION_IDLE_TIMEOUT_MS',
      registers: register,
    });
    this.on(TURNS_CHANNELS.sessionReaped, () => reaped.inc());
    gauge('turns_waiters', 'Turn requests being held (waitMs, Prefer: wait)', () => waits.waiting);
    gauge('turns_sse_streams', 'Open SSE event streams', () => events.openStreamCount);

    const agents = new Counter({
      name: 'turns_agent_process_events_total',
      help: 'Agent processes started, exited, or failed to start',
      labelNames: ['event'],
      registers: register,
    });
    this.on(TURNS_CHANNELS.agentProcess, ({ event }) => agents.labels(event).inc());
    const appendFailures = new Counter({
      name: 'turns_recorder_append_failures_total',
      help: 'Transcript appends that failed (the turn is still answered from memory)',
      registers: register,
    });
    this.on(TURNS_CHANNELS.recorderAppendFailed, () => appendFailures.inc());

    const decisions = new Counter({
      name: 'turns_permission_requests_total',
      help: "Agents' requests for approval of a tool call, by outcome and by who decided (client, policy, timeout, turn_end, limit, client_left)",
      labelNames: ['outcome', 'decided_by'],
      registers: register,
    });
    this.on(TURNS_CHANNELS.permissionDecided, ({ outcome, decidedBy }) => decisions.labels(outcome, decidedBy).inc());
    gauge('turns_permission_requests_pending', "Agents' requests for approval waiting for an answer now", () => permissions.pendingCount);

    const attempts = new Counter({
      name: 'turns_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome: delivered, retry (failed, tried again later), failed (given up)',
      labelNames: ['outcome'],
      registers: register,
    });
    this.on(TURNS_CHANNELS.webhookAttempt, ({ outcome }) => attempts.labels(outcome).inc());
    new Gauge({
      name: 'turns_webhook_outbox_depth',
      help: 'Webhook deliveries pending in the durable outbox',
      registers: register,
      async collect() {
        this.set(await webhooks.outboxDepth());
      },
    });

    if (ownership.clusterState()) {
      const forwards = new Counter({
        name: 'turns_cluster_forwards_total',
        help: 'Requests forwarded to their session owner, by outcome',
        labelNames: ['outcome'],
        registers: register,
      });
      this.on(TURNS_CHANNELS.clusterForward, ({ outcome }) => forwards.labels(outcome).inc());
      const renewals = new Counter({ name: 'turns_cluster_lease_renewals_total', help: 'Session leases renewed', registers: register });
      const losses = new Counter({
        name: 'turns_cluster_lease_losses_total',
        help: 'Session leases another node took (the session closed here)',
        registers: register,
      });
      this.on(TURNS_CHANNELS.clusterLeaseRenewal, ({ renewed, lost }) => {
        renewals.inc(renewed);
        losses.inc(lost);
      });
      gauge('turns_cluster_redis_up', '1 while the cluster directory (Redis) answers', () =>
        ownership.clusterState()?.redis === 'up' ? 1 : 0,
      );
      gauge('turns_cluster_leases', 'Session leases this node holds', () => ownership.clusterState()?.leases ?? 0);
    }

    function gauge(name: string, help: string, read: () => number): void {
      new Gauge({
        name,
        help,
        registers: register,
        collect() {
          this.set(read());
        },
      });
    }
  }

  /** Records one HTTP exchange (labels normalized so their number stays bounded). */
  observeHttp(method: string | undefined, route: string, status: number, seconds: number): void {
    // Keyed by the raw values (Node's parser knows a fixed set of methods), normalized once per key.
    const key = `${method} ${status} ${route}`;
    let child = this.httpChildren.get(key);
    if (!child) {
      child = this.httpDuration.labels(httpLabels(method, route, status));
      this.httpChildren.set(key, child);
    }
    child.observe(seconds);
  }

  /** The exposition, in the Prometheus text format. */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  onModuleDestroy(): void {
    for (const stop of this.unsubscribe.splice(0)) stop();
  }

  private on<T>(channel: { subscribe(listener: (message: T) => void): () => void }, listener: (message: T) => void): void {
    this.unsubscribe.push(channel.subscribe(listener));
  }
}
