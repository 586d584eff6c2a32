import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { TURNS_CHANNELS } from '../telemetry/turns-channels.js';
import { DeliveryLog } from './delivery-log.js';
import { attemptDelivery } from './delivery-attempt.js';
import { receiverKey, subscriptionOf } from './delivery-receiver.js';
import { DeliverySchedule, earliestEntries } from './delivery-schedule.js';
import { disables, nextStepOf, verdictOf, type Verdict } from './delivery-verdict.js';
import { failureLine, ReceiverHealth, receiverName } from './receiver-health.js';
import { deliveriesOf, type DeliveryLogEntry, type DeliveryTarget, type OutgoingEvent, type WebhookDelivery } from './webhook-delivery.js';
import { WebhookOutbox, type OutboxEntry } from './webhook-outbox.js';
import { WEBHOOK_SETTINGS, type WebhookSettings } from './webhooks.settings.js';
import { WebhookSubscriptions } from './webhook-subscriptions.service.js';

/** In overflow, the outbox is listed again at most this often, for deliveries due before the scheduled ones. */
const RELIST_MS = 250;

/** Sends what the outbox holds, at least once, in bounded memory (docs/decisions.md#the-webhook-dispatchers-bounds). */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('WebhookDispatcher');
  private readonly outbox: WebhookOutbox;
  private readonly retrying = new Set<string>();
  /** deliveryId → when it is due (also its outbox file's name); at most `maxScheduled`. */
  private readonly scheduled: DeliverySchedule;
  private readonly inFlight = new Set<string>();
  /** deliveryId → attempts made, for deliveries whose file lags behind (its rewrite failed); gone once written or done. */
  private readonly unwritten = new Map<string, number>();
  private readonly log = new DeliveryLog();
  /** Which receivers are failing, so the log warns once per change, not once per retry. */
  private readonly health = new ReceiverHealth();
  /** Deliveries wait on disk that the schedule had no room for. */
  private overflow = false;
  private refilling?: Promise<void>;
  private listedAt = -Infinity;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  /** The start's recovery of interrupted writes: a write of this process waits for it, so it never finds (and takes) a live write's temp file. */
  private recovered: Promise<unknown> = Promise.resolve();
  /** Aborts the attempts in flight at shutdown: they stay pending in the outbox. */
  private readonly shutdown = new AbortController();

  constructor(
    @Inject(WEBHOOK_SETTINGS) private readonly settings: WebhookSettings,
    private readonly subscriptions: WebhookSubscriptions,
    private readonly clock: Clock,
  ) {
    this.outbox = new WebhookOutbox(settings.outboxDir);
    this.scheduled = new DeliverySchedule(settings.maxScheduled);
  }

  onApplicationBootstrap(): void {
    this.overflow = true;
    // A delivery whose write a crash cut between sync and rename is pending too.
    this.recovered = this.outbox.recover(true).catch(() => 0);
    void this.recovered.then(() => this.refill());
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.shutdown.abort();
  }

  /** Deliveries pending in the outbox (on disk: however many, not only those scheduled in memory). */
  outboxDepth(): Promise<number> {
    return this.outbox.count();
  }

  /** Pending deliveries whose last attempt failed (since this process started). */
  get failing(): number {
    return this.retrying.size;
  }

  /** Deliveries held in memory now, scheduled or in flight (never more than `maxScheduled + maxConcurrent`). */
  get pending(): number {
    return this.scheduled.size + this.inFlight.size;
  }

  /** Writes the delivery to the outbox, then schedules its first attempt. */
  async enqueue(delivery: WebhookDelivery): Promise<void> {
    await this.recovered;
    await this.outbox.put(delivery);
    this.log.record(delivery, 'pending');
    this.schedule(delivery.deliveryId, delivery.nextAttemptAt);
  }

  /** Queues one event to each receiver (their deliveries written, then scheduled). */
  async enqueueEach(event: OutgoingEvent, targets: readonly DeliveryTarget[]): Promise<void> {
    await Promise.all(deliveriesOf(event, targets).map((delivery) => this.enqueue(delivery)));
  }

  /** Where this process's outbox is. */
  get outboxDir(): string {
    return this.settings.outboxDir;
  }

  /** Takes over another outbox's pending deliveries (a dead cluster node's) and schedules them. */
  async adopt(dir: string): Promise<number> {
    const moved = await this.outbox.adopt(dir);
    if (moved > 0) {
      this.overflow = true;
      await this.refill();
    }
    return moved;
  }

  /** The last deliveries of a subscription, oldest first. */
  deliveries(sessionId: string, webhookId: string): DeliveryLogEntry[] {
    return this.log.of(sessionId, webhookId);
  }

  private schedule(deliveryId: string, at: number, dueAt = at): void {
    if (this.stopped) return;
    // No room: it waits on disk; a later listing brings it in when it is among the earliest.
    if (!this.scheduled.add(deliveryId, at, dueAt)) this.overflow = true;
    else this.arm();
  }

  /** One timer, for the earliest due delivery — in overflow, also to list the outbox again. */
  private arm(): void {
    clearTimeout(this.timer);
    if (this.stopped || this.inFlight.size >= this.settings.maxConcurrent) return;
    const earliest = Math.min(this.overflow ? this.clock.now() + RELIST_MS : Infinity, this.scheduled.earliest());
    if (earliest === Infinity) return;
    this.timer = setTimeout(() => this.runDue(), Math.max(0, Math.min(earliest - this.clock.now(), 2 ** 31 - 1)));
    this.timer.unref?.();
  }

  private runDue(): void {
    const now = this.clock.now();
    for (const entry of this.scheduled.takeDue(now, this.settings.maxConcurrent - this.inFlight.size)) {
      const { deliveryId } = entry;
      this.inFlight.add(deliveryId);
      void this.attempt(entry).finally(() => {
        this.inFlight.delete(deliveryId);
        this.arm();
      });
    }
    if (this.overflow && now - this.listedAt >= RELIST_MS) void this.refill();
    this.arm();
  }

  /** Keeps the outbox's `maxScheduled` earliest due deliveries in the schedule (one streamed pass), so none starves. */
  private refill(): Promise<void> {
    this.refilling ??= (async () => {
      this.listedAt = this.clock.now();
      try {
        const skip = (deliveryId: string) => this.scheduled.has(deliveryId) || this.inFlight.has(deliveryId);
        const listed = await earliestEntries(this.outbox.entries(), this.settings.maxScheduled, skip, this.shutdown.signal);
        if (!listed) return;
        const left = this.scheduled.admit(listed.earliest);
        this.overflow = listed.more || left;
      } catch (error) {
        this.logger.warn(`outbox not listed: ${(error as Error)?.name ?? 'error'}`);
      } finally {
        this.refilling = undefined;
        this.arm();
      }
    })();
    return this.refilling;
  }

  private async attempt(entry: OutboxEntry): Promise<void> {
    const delivery = await this.outbox.get(entry);
    if (!delivery) {
      // Gone (an adopter took it): nothing of it is kept here.
      this.unwritten.delete(entry.deliveryId);
      this.retrying.delete(entry.deliveryId);
      return;
    }
    const { deliveryId } = delivery;
    // A rewrite that failed left the file's count behind: the attempts made count.
    delivery.attempts = Math.max(delivery.attempts, this.unwritten.get(deliveryId) ?? 0) + 1;
    const made = await attemptDelivery(delivery, this.settings, this.subscriptions, () => this.clock.now(), this.shutdown.signal);
    if (made.kind === 'aborted') return;
    if (made.kind === 'removed') {
      this.health.forget(receiverKey(delivery));
      return this.finish(delivery, entry.at, 'failed', 'webhook_removed');
    }
    const verdict = verdictOf(made.result, delivery.attempts, this.settings, this.clock.now());
    TURNS_CHANNELS.webhookAttempt.publish({ outcome: verdict.kind });
    this.report(delivery, verdict, made.reason);
    if (verdict.kind === 'retry') this.retrying.add(deliveryId);
    else this.retrying.delete(deliveryId);
    switch (verdict.kind) {
      case 'delivered':
        return this.finish(delivery, entry.at, 'delivered');
      case 'failed':
        if (verdict.disable && made.file && delivery.target.kind === 'subscription') {
          await this.subscriptions.disable(made.file, delivery.target.webhookId).catch(() => undefined);
        }
        return this.finish(delivery, entry.at, 'failed');
      case 'retry':
        delivery.nextAttemptAt = this.clock.now() + verdict.delayMs;
        return this.rewrite(delivery, entry.at);
      default: {
        const exhaustive: never = verdict;
        return exhaustive;
      }
    }
  }

  /** Rewrites a failed delivery under its next due time, and schedules it (docs/decisions.md#the-webhook-dispatchers-bounds). */
  private async rewrite(delivery: WebhookDelivery, at: number): Promise<void> {
    const { deliveryId } = delivery;
    try {
      const written = await this.outbox.put(delivery, at);
      this.unwritten.delete(deliveryId);
      if (!written) {
        this.retrying.delete(deliveryId);
        this.logger.log(`delivery ${deliveryId} adopted by another node: it sends it now`);
        return;
      }
      this.schedule(deliveryId, delivery.nextAttemptAt);
    } catch (error) {
      // The delivery stays under the name it had (the rewrite renames only once it is whole): retried from there, as late.
      this.unwritten.set(deliveryId, delivery.attempts);
      const code = (error as NodeJS.ErrnoException)?.code;
      const why = `${(error as Error)?.name ?? 'error'}${code ? ` ${code}` : ''}`;
      this.logger.warn(`outbox rewrite failed for ${deliveryId}: ${why}; kept as it was`);
      this.schedule(deliveryId, at, delivery.nextAttemptAt);
    }
    this.log.record(delivery, 'pending');
  }

  /** Logs a receiver turning failing (`warn`) or delivering again (`info`): once per change, whatever the retries. */
  private report(delivery: WebhookDelivery, verdict: Verdict, error: string | undefined): void {
    const key = receiverKey(delivery);
    const subscription = subscriptionOf(delivery);
    const change = this.health.note(key, verdict.kind === 'delivered');
    if (change === 'recovered') this.logger.log(`${receiverName(subscription)} delivers again`);
    if (change === 'failing' || disables(verdict)) {
      const { attempts, lastStatus: status } = delivery;
      const next = nextStepOf(verdict);
      this.logger.warn(failureLine({ subscription, status, error, attempts, maxAttempts: this.settings.maxAttempts, next }));
    }
    // A disabled subscription is sent nothing more: no recovery to wait for.
    if (disables(verdict)) this.health.forget(key);
  }

  private async finish(delivery: WebhookDelivery, at: number, state: 'delivered' | 'failed', lastError?: string): Promise<void> {
    this.retrying.delete(delivery.deliveryId);
    this.unwritten.delete(delivery.deliveryId);
    if (lastError !== undefined) delivery.lastError = lastError;
    await this.outbox.remove(delivery.deliveryId, at).catch(() => undefined);
    this.log.record(delivery, state);
  }
}
