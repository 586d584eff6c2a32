import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { PromptBridge } from '../bridge/prompt-bridge.js';
import { pseudonymousStatus } from '../turns/serialized-turn-status.js';
import type { PendingInteraction } from '../turns/turn-status.js';
import type { TurnPermissionRequestedWebhookEvent } from '../webhooks/turn-webhook-event.js';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import { WebhookSubscriptions } from '../webhooks/webhook-subscriptions.service.js';
import { PermissionBroker, type PermissionTurn } from './permission-broker.js';

const TYPE = 'turn.permission_requested';

/**
 * `turn.permission_requested` (docs/permissions.md): each request held for an answer is
 * queued, through the webhook outbox (docs/webhooks.md's delivery rules), to the
 * session's subscriptions that named the type in `events` — so a receiver
 * can answer over REST. `data` is the running turn as a poll sees it then.
 */
@Injectable()
export class PermissionWebhookEvents implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('PermissionWebhookEvents');
  private unsubscribe?: () => void;

  constructor(
    private readonly broker: PermissionBroker,
    private readonly bridge: PromptBridge,
    private readonly subscriptions: WebhookSubscriptions,
    private readonly dispatcher: WebhookDispatcher,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.broker.onRequested((turn, item) =>
      this.queue(turn, item).catch((error: unknown) => this.logger.error(`webhook event not queued: ${(error as Error)?.name ?? 'error'}`)),
    );
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  private async queue({ sessionId, promptId }: PermissionTurn, { requestId }: PendingInteraction): Promise<void> {
    const file = this.subscriptions.fileOf(sessionId);
    if (!file) return;
    const webhooks = (await this.subscriptions.read(file)).filter((w) => w.disabledAt === undefined && w.events.includes(TYPE));
    // Read after the subscriptions' read: the request may have been answered (or its turn ended) meanwhile.
    const data = this.bridge.getLive(sessionId, promptId);
    if (webhooks.length === 0 || data?.state !== 'running') return;
    if (!data.pendingInteractions?.some((pending) => pending.requestId === requestId)) return;
    const now = this.clock.now();
    // A receiver is no client: it reads the originator's pseudonym.
    const event: TurnPermissionRequestedWebhookEvent = { type: TYPE, timestamp: now, requestId, data: pseudonymousStatus(data) };
    const body = JSON.stringify(event);
    const targets = webhooks.map(({ webhookId }) => ({ kind: 'subscription' as const, file, webhookId }));
    // One message per request and receiver: the request id stands where a terminal's prompt id does.
    await this.dispatcher.enqueueEach({ key: requestId, sessionId, promptId, type: TYPE, body, at: now }, targets);
  }
}
