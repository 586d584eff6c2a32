import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { DeliveryAttempts } from './delivery-attempts.js';
import { DeliveryLog } from './delivery-log.js';
import { DeliverySchedule, earliestEntries } from './delivery-schedule.js';
import { deliveriesOf, type DeliveryLogEntry, type DeliveryTarget, type OutgoingEvent, type WebhookDelivery } from './webhook-delivery.js';
import { WebhookOutbox } from './webhook-outbox.js';
import { WEBHOOK_SETTINGS, type WebhookSettings } from './webhooks.settings.js';
import { WebhookSubscriptions } from './webhook-subscriptions.service.js';

/** In overflow, the outbox is listed again at most this often, for deliveries due before the scheduled ones. */
const RELIST_MS = 250;

/**
 * Sends what the outbox holds, at least once, within bounds (docs/decisions.md#the-webhook-dispatchers-bounds); an
 * attempt and what follows from its verdict: {@link DeliveryAttempts}.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('WebhookDispatcher');
  private readonly outbox: WebhookOutbox;
  private readonly attempts: DeliveryAttempts;
  /** deliveryId → when it is due (also its outbox file's name); at most `maxScheduled`. */
  private readonly scheduled: DeliverySchedule;
  private readonly inFlight = new Set<string>();
  private readonly log = new DeliveryLog();
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
    const { outbox, log } = this;
    const schedule = (deliveryId: string, at: number, dueAt?: number) => this.schedule(deliveryId, at, dueAt);
    this.attempts = new DeliveryAttempts({ settings, subscriptions, clock, outbox, log, shutdown: this.shutdown.signal, schedule });
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
    return this.attempts.failing;
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
      void this.attempts.attempt(entry).finally(() => {
        this.inFlight.delete(deliveryId);
        this.arm();
      });
    }
    if (this.overflow && now - this.listedAt >= RELIST_MS) void this.refill();
    this.arm();
  }

  /**
   * Lists the outbox and keeps the `maxScheduled` earliest due deliveries in
   * the schedule (one streamed pass; memory holds only those), so the ones
   * retried most do not starve the others.
   */
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
}
