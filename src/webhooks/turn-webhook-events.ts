import { Inject, Injectable, Logger, Optional, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { PromptBridge, type TurnTransition } from '../bridge/prompt-bridge.js';
import { statusOfTerminal } from '../ledger/ledger-record.js';
import { PromptLedger } from '../ledger/prompt-ledger.js';
import { TurnStatusService } from '../turns/turn-status.service.js';
import { pseudonymousStatus } from '../turns/serialized-turn-status.js';
import type { TurnStatus } from '../turns/turn-status.js';
import { DEFAULT_TURN_WEBHOOK_EVENTS, eventTypeOf, turnWebhookEventOf, type TurnWebhookEventType } from './turn-webhook-event.js';
import { QueuedWebhookEvents, queuedKey } from './queued-webhook-events.js';
import type { DeliveryTarget } from './webhook-delivery.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WEBHOOK_SETTINGS, type WebhookSettings } from './webhooks.settings.js';
import { WebhookSubscriptions } from './webhook-subscriptions.service.js';

/**
 * Turns the bridge's transitions into webhook deliveries, `data` asked of `TurnStatusService` itself, and catches up
 * after a crash through {@link QueuedWebhookEvents} (docs/webhooks.md: events, durable at least once).
 */
@Injectable()
export class TurnWebhookEvents implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('TurnWebhookEvents');
  private unsubscribe?: () => void;

  constructor(
    private readonly bridge: PromptBridge,
    private readonly subscriptions: WebhookSubscriptions,
    private readonly dispatcher: WebhookDispatcher,
    private readonly ledger: PromptLedger,
    private readonly queued: QueuedWebhookEvents,
    private readonly clock: Clock,
    @Inject(WEBHOOK_SETTINGS) private readonly settings: WebhookSettings,
    @Optional() private readonly polls?: TurnStatusService,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.bridge.onTransition((transition) => {
      const { sessionId } = transition;
      // The files are found while the session's transcript is attached (a close detaches it next).
      if (transition.kind === 'admitted') {
        this.queued.begin(sessionId, this.queued.fileOf(sessionId)).catch((error: unknown) => this.failed('not started', error));
        return;
      }
      // Its admission was refused, its client answered 503: nothing is owed for a prompt never acknowledged.
      if (transition.kind === 'withdrawn') return;
      const marks = transition.kind === 'settled' ? this.queued.fileOf(sessionId) : undefined;
      this.handle(transition, this.subscriptions.fileOf(sessionId))
        .then(() => this.queued.mark(sessionId, marks, transition.promptId, eventTypeOf(transition.status.state)!))
        .catch((error: unknown) => this.failed('not queued', error));
    });
    this.ledger.onReconciled((sessionId, at) => this.requeue(sessionId, at).catch((error: unknown) => this.failed('not re-queued', error)));
  }

  /**
   * Queues the events of the ledger's recent terminals that were published
   * after the session's record of them began and never decided — those a
   * crash caught before the outbox write — and `turn.error` (`daemon_lost`)
   * for each prompt a reconciliation settled as lost: nobody announced those.
   * A session older than the record starts one, as of this reconciliation:
   * what came before it is taken as delivered.
   */
  private async requeue(sessionId: string, reconciledAt: number): Promise<void> {
    const queued = await this.queued.read(sessionId);
    const marks = this.queued.fileOf(sessionId);
    const from = queued.from ?? reconciledAt;
    if (queued.from === undefined) await this.queued.begin(sessionId, marks, from);
    const file = this.subscriptions.fileOf(sessionId);
    for (const record of await this.ledger.recentTerminals(sessionId)) {
      // A prompt this process knows has its own event under way.
      if (record.at < from || this.known(sessionId, record.promptId)) continue;
      const status = statusOfTerminal(sessionId, record);
      const type = eventTypeOf(status.state)!;
      if (queued.keys.has(queuedKey(record.promptId, type))) continue;
      await this.handle({ kind: 'settled', sessionId, promptId: record.promptId, status, waited: false }, file);
      await this.queued.mark(sessionId, marks, record.promptId, type);
    }
  }

  private known(sessionId: string, promptId: string): boolean {
    return this.bridge.getLive(sessionId, promptId) !== undefined || this.bridge.overlay.get(sessionId, promptId) !== undefined;
  }

  private failed(what: string, error: unknown): void {
    this.logger.error(`webhook event ${what}: ${(error as Error)?.name ?? 'error'}`);
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  private async handle(transition: TurnTransition, file: string | undefined): Promise<void> {
    const provisional = transition.kind === 'settled_late' ? undefined : eventTypeOf(transition.status.state);
    // A late settle becomes an event only if it changes what the poll answers (the deadline path).
    const receivers = await this.receivers(file, provisional ?? 'turn.completed', transition.kind === 'settled_late');
    if (receivers.length === 0) return;
    const data = transition.kind === 'started' ? transition.status : await this.exactPoll(transition);
    if (!data || (transition.kind === 'settled_late' && data.state === 'error')) return;
    const now = this.clock.now();
    // A receiver is no client: it reads the originator's pseudonym.
    const event = turnWebhookEventOf(pseudonymousStatus(data), now);
    if (!event || (provisional !== undefined && event.type !== provisional)) return;
    const { type } = event;
    const body = JSON.stringify(event);
    const { sessionId, promptId } = transition;
    const targets = receivers.filter((receiver) => receiver.events.includes(type)).map((receiver) => receiver.target);
    await this.dispatcher.enqueueEach({ key: promptId, sessionId, promptId, type, body, at: now }, targets);
  }

  /** Who may want this event: the session's live subscriptions and the operator's endpoint. */
  private async receivers(file: string | undefined, type: TurnWebhookEventType, anyTerminal: boolean) {
    const wants = (events: readonly TurnWebhookEventType[]) =>
      anyTerminal ? events.some((e) => e !== 'turn.started') : events.includes(type);
    const receivers: Array<{ target: DeliveryTarget; events: readonly TurnWebhookEventType[] }> = [];
    if (file) {
      for (const webhook of await this.subscriptions.read(file)) {
        if (webhook.disabledAt === undefined && wants(webhook.events)) {
          receivers.push({ target: { kind: 'subscription', file, webhookId: webhook.webhookId }, events: webhook.events });
        }
      }
    }
    if (this.settings.operator && wants(DEFAULT_TURN_WEBHOOK_EVENTS)) {
      receivers.push({ target: { kind: 'operator' }, events: DEFAULT_TURN_WEBHOOK_EVENTS });
    }
    return receivers;
  }

  /** The exact poll's answer; for a late settle, nothing when the poll cannot answer (the session closed). */
  private async exactPoll(transition: TurnTransition): Promise<TurnStatus | undefined> {
    const fallback = transition.kind === 'settled_late' ? undefined : transition.status;
    if (!this.polls) return fallback;
    return this.polls.getTurn(transition.sessionId, transition.promptId).catch(() => fallback);
  }
}
