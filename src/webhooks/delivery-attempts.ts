import { Logger } from '@nestjs/common';
import type { Clock } from '../common/clock.js';
import { TURNS_CHANNELS } from '../telemetry/turns-channels.js';
import type { DeliveryLog } from './delivery-log.js';
import { receiverKey, receiverOf, subscriptionOf } from './delivery-receiver.js';
import { attemptFailureOf, disables, nextStepOf, verdictOf, type Verdict } from './delivery-verdict.js';
import { failureLine, ReceiverHealth, receiverName } from './receiver-health.js';
import { signTurnWebhook } from './turn-webhook-signature.js';
import type { WebhookDelivery } from './webhook-delivery.js';
import type { OutboxEntry, WebhookOutbox } from './webhook-outbox.js';
import { sendWebhook, type AttemptResult } from './webhook-sender.js';
import type { WebhookSettings } from './webhooks.settings.js';
import type { WebhookSubscriptions } from './webhook-subscriptions.service.js';

/** What an attempt reads and writes, and how it hands a delivery back to the dispatcher's schedule. */
export interface AttemptParts {
  settings: WebhookSettings;
  subscriptions: WebhookSubscriptions;
  clock: Clock;
  outbox: WebhookOutbox;
  log: DeliveryLog;
  /** Aborted at shutdown: an attempt in flight then stays pending in the outbox as it was. */
  shutdown: AbortSignal;
  /** Schedules a delivery's next attempt at `at` (due at `dueAt`). */
  schedule: (deliveryId: string, at: number, dueAt?: number) => void;
}

/**
 * One attempt of a delivery the dispatcher found due, and what follows from its verdict: done (removed from the
 * outbox), or rewritten for a retry and scheduled again; a receiver's health logged once per change.
 */
export class DeliveryAttempts {
  private readonly logger = new Logger('WebhookDispatcher');
  private readonly retrying = new Set<string>();
  /** deliveryId → attempts made, for deliveries whose file lags behind (its rewrite failed); gone once written or done. */
  private readonly unwritten = new Map<string, number>();
  /** Which receivers are failing, so the log warns once per change, not once per retry. */
  private readonly health = new ReceiverHealth();

  constructor(private readonly parts: AttemptParts) {}

  /** Pending deliveries whose last attempt failed (since this process started). */
  get failing(): number {
    return this.retrying.size;
  }

  async attempt(entry: OutboxEntry): Promise<void> {
    const { outbox, settings, clock } = this.parts;
    const delivery = await outbox.get(entry);
    if (!delivery) {
      // Gone (an adopter took it): nothing of it is kept here.
      this.unwritten.delete(entry.deliveryId);
      this.retrying.delete(entry.deliveryId);
      return;
    }
    const { deliveryId } = delivery;
    let result: AttemptResult | undefined;
    let file: string | undefined;
    let reason: string | undefined;
    // A rewrite that failed left the file's count behind: the attempts made count.
    delivery.attempts = Math.max(delivery.attempts, this.unwritten.get(deliveryId) ?? 0) + 1;
    try {
      const target = await receiverOf(delivery, settings, this.parts.subscriptions);
      if (!target) {
        this.health.forget(receiverKey(delivery));
        return this.finish(delivery, entry.at, 'failed', 'webhook_removed');
      }
      file = target.file;
      const headers = signTurnWebhook(target.secret, deliveryId, clock.now(), delivery.body);
      if (target.token !== undefined) headers.authorization = `Bearer ${target.token}`;
      result = await sendWebhook(target.checked, headers, delivery.body, settings.timeoutMs, this.parts.shutdown);
      delivery.lastStatus = result.status;
      delete delivery.lastError;
    } catch (error) {
      // Aborted by shutdown: the outbox keeps it as it was.
      if (this.parts.shutdown.aborted) return;
      const failure = attemptFailureOf(error);
      delivery.lastError = failure.error;
      reason = failure.reason;
      delete delivery.lastStatus;
    }
    const verdict = verdictOf(result, delivery.attempts, settings, clock.now());
    TURNS_CHANNELS.webhookAttempt.publish({ outcome: verdict.kind });
    this.report(delivery, verdict, reason);
    if (verdict.kind === 'retry') this.retrying.add(deliveryId);
    else this.retrying.delete(deliveryId);
    switch (verdict.kind) {
      case 'delivered':
        return this.finish(delivery, entry.at, 'delivered');
      case 'failed':
        if (verdict.disable && file && delivery.target.kind === 'subscription') {
          await this.parts.subscriptions.disable(file, delivery.target.webhookId).catch(() => undefined);
        }
        return this.finish(delivery, entry.at, 'failed');
      case 'retry':
        delivery.nextAttemptAt = clock.now() + verdict.delayMs;
        return this.rewrite(delivery, entry.at);
      default: {
        const exhaustive: never = verdict;
        return exhaustive;
      }
    }
  }

  /**
   * Rewrites a delivery after a failed attempt, under its next due time, and
   * schedules it. Its log row changes only once the outbox has the one new
   * file (a scrape then counts it once). One the outbox lost to an adopter is
   * forgotten here: the adopter sends it.
   */
  private async rewrite(delivery: WebhookDelivery, at: number): Promise<void> {
    const { deliveryId } = delivery;
    try {
      const written = await this.parts.outbox.put(delivery, at);
      this.unwritten.delete(deliveryId);
      if (!written) {
        this.retrying.delete(deliveryId);
        this.logger.log(`delivery ${deliveryId} adopted by another node: it sends it now`);
        return;
      }
      this.parts.schedule(deliveryId, delivery.nextAttemptAt);
    } catch (error) {
      // The delivery stays under the name it had (the rewrite renames only once it is whole): retried from there, as late.
      this.unwritten.set(deliveryId, delivery.attempts);
      const code = (error as NodeJS.ErrnoException)?.code;
      this.logger.warn(
        `outbox rewrite failed for ${deliveryId}: ${(error as Error)?.name ?? 'error'}${code ? ` ${code}` : ''}; kept as it was`,
      );
      this.parts.schedule(deliveryId, at, delivery.nextAttemptAt);
    }
    this.parts.log.record(delivery, 'pending');
  }

  /** Logs a receiver turning failing (`warn`) or delivering again (`info`): once per change, whatever the retries. */
  private report(delivery: WebhookDelivery, verdict: Verdict, error: string | undefined): void {
    const key = receiverKey(delivery);
    const subscription = subscriptionOf(delivery);
    const change = this.health.note(key, verdict.kind === 'delivered');
    if (change === 'recovered') this.logger.log(`${receiverName(subscription)} delivers again`);
    if (change === 'failing' || disables(verdict)) {
      const { maxAttempts } = this.parts.settings;
      const next = nextStepOf(verdict);
      this.logger.warn(failureLine({ subscription, status: delivery.lastStatus, error, attempts: delivery.attempts, maxAttempts, next }));
    }
    // A disabled subscription is sent nothing more: no recovery to wait for.
    if (disables(verdict)) this.health.forget(key);
  }

  private async finish(delivery: WebhookDelivery, at: number, state: 'delivered' | 'failed', lastError?: string): Promise<void> {
    this.retrying.delete(delivery.deliveryId);
    this.unwritten.delete(delivery.deliveryId);
    if (lastError !== undefined) delivery.lastError = lastError;
    await this.parts.outbox.remove(delivery.deliveryId, at).catch(() => undefined);
    this.parts.log.record(delivery, state);
  }
}
