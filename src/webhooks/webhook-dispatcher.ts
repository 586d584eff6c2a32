import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { retryAfterMs, retryDelayMs } from './retry-schedule.js';
import { signTurnWebhook } from './turn-webhook-signature.js';
import { DeliveryLog } from './delivery-log.js';
import type { DeliveryLogEntry, WebhookDelivery } from './webhook-delivery.js';
import { WebhookOutbox, type OutboxEntry } from './webhook-outbox.js';
import { sendWebhook, type AttemptResult } from './webhook-sender.js';
import { WEBHOOK_SETTINGS, type WebhookSettings } from './webhook-settings.js';
import { WebhookSubscriptions } from './webhook-subscriptions.service.js';
import { checkWebhookUrl, ForbiddenWebhookUrl, type CheckedTarget } from './webhook-url-guard.js';
import { AddressPolicy } from './address-policy.js';
import { failureLine, ReceiverHealth, receiverName, type FailureReport } from './receiver-health.js';
import { TURNS_CHANNELS } from '../telemetry/turns-channels.js';

/** The operator's endpoint is the operator's own setting: not subject to the SSRF guard. */
const ANY_ADDRESS = new AddressPolicy(['0.0.0.0/0', '::/0']);

/** What an attempt comes to, and where the delivery goes next. */
type Verdict = { kind: 'delivered' } | { kind: 'failed'; disable?: boolean } | { kind: 'retry'; delayMs: number };

/** The rule after an attempt: 2xx delivered, 410 disables, else a retry until the last attempt (Retry-After honoured on 429/503). */
export function verdictOf(
  result: AttemptResult | undefined,
  attempts: number,
  settings: Pick<WebhookSettings, 'maxAttempts' | 'retryBaseMs'>,
  now: number,
  random: () => number = Math.random,
): Verdict {
  if (result && result.status >= 200 && result.status < 300) return { kind: 'delivered' };
  if (result?.status === 410) return { kind: 'failed', disable: true };
  if (attempts >= settings.maxAttempts) return { kind: 'failed' };
  const hinted = result && (result.status === 429 || result.status === 503) ? retryAfterMs(result.retryAfter, now) : undefined;
  return { kind: 'retry', delayMs: hinted ?? retryDelayMs(attempts, settings.retryBaseMs, random) };
}

/** In overflow, the outbox is listed again at most this often, for deliveries due before the scheduled ones. */
const RELIST_MS = 250;

/**
 * Sends what the outbox holds, at least once: one timer for the earliest
 * due delivery, a bounded number of attempts in flight, and a bounded
 * schedule in memory — when more are pending, the rest wait on disk and the
 * earliest due of them are listed in as room frees up (a listing reads file
 * names only). A restart schedules whatever the outbox kept.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('WebhookDispatcher');
  private readonly outbox: WebhookOutbox;
  private readonly retrying = new Set<string>();
  /** deliveryId → when it is due (also its outbox file's name); at most `maxScheduled`. */
  private readonly scheduled = new Map<string, number>();
  private readonly inFlight = new Set<string>();
  private readonly log = new DeliveryLog();
  /** Which receivers are failing, so the log warns once per change, not once per retry. */
  private readonly health = new ReceiverHealth();
  /** Deliveries wait on disk that the schedule had no room for. */
  private overflow = false;
  private refilling?: Promise<void>;
  private listedAt = -Infinity;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  /** Aborts the attempts in flight at shutdown: they stay pending in the outbox. */
  private readonly shutdown = new AbortController();

  constructor(
    @Inject(WEBHOOK_SETTINGS) private readonly settings: WebhookSettings,
    private readonly subscriptions: WebhookSubscriptions,
    private readonly clock: Clock,
  ) {
    this.outbox = new WebhookOutbox(settings.outboxDir);
  }

  onApplicationBootstrap(): void {
    this.overflow = true;
    // A delivery whose write a crash cut between sync and rename is pending too.
    void this.outbox
      .recover(true)
      .catch(() => 0)
      .then(() => this.refill());
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
    await this.outbox.put(delivery);
    this.log.record(delivery, 'pending');
    this.schedule(delivery.deliveryId, delivery.nextAttemptAt);
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

  private schedule(deliveryId: string, at: number): void {
    if (this.stopped) return;
    if (this.scheduled.size >= this.settings.maxScheduled) {
      // No room: it waits on disk; a later listing brings it in when it is among the earliest.
      this.overflow = true;
      return;
    }
    this.scheduled.set(deliveryId, at);
    this.arm();
  }

  /** One timer, for the earliest due delivery — in overflow, also to list the outbox again. */
  private arm(): void {
    clearTimeout(this.timer);
    if (this.stopped || this.inFlight.size >= this.settings.maxConcurrent) return;
    let earliest = this.overflow ? this.clock.now() + RELIST_MS : Infinity;
    for (const at of this.scheduled.values()) earliest = Math.min(earliest, at);
    if (earliest === Infinity) return;
    this.timer = setTimeout(() => this.runDue(), Math.max(0, Math.min(earliest - this.clock.now(), 2 ** 31 - 1)));
    this.timer.unref?.();
  }

  private runDue(): void {
    const now = this.clock.now();
    for (const [deliveryId, at] of this.scheduled) {
      if (this.inFlight.size >= this.settings.maxConcurrent) break;
      if (at > now) continue;
      this.scheduled.delete(deliveryId);
      this.inFlight.add(deliveryId);
      void this.attempt({ deliveryId, at }).finally(() => {
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
        const max = this.settings.maxScheduled;
        const earliest: OutboxEntry[] = [];
        let more = false;
        for await (const entry of this.outbox.entries()) {
          if (this.stopped) return;
          if (this.scheduled.has(entry.deliveryId) || this.inFlight.has(entry.deliveryId)) continue;
          if (earliest.length === max) {
            more = true;
            if (entry.at >= earliest[max - 1]!.at) continue;
            earliest.pop();
          }
          earliest.splice(sortedIndex(earliest, entry.at), 0, entry);
        }
        for (const entry of earliest) {
          if (this.scheduled.size >= max) {
            const [latestId, latestAt] = latest(this.scheduled);
            if (latestAt <= entry.at) {
              more = true;
              break;
            }
            this.scheduled.delete(latestId);
            more = true;
          }
          this.scheduled.set(entry.deliveryId, entry.at);
        }
        this.overflow = more;
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
    if (!delivery) return;
    const { deliveryId } = delivery;
    let result: AttemptResult | undefined;
    let file: string | undefined;
    let refusal: string | undefined;
    delivery.attempts += 1;
    try {
      const target = await this.targetOf(delivery);
      if (!target) {
        this.health.forget(receiverKey(delivery));
        return this.finish(delivery, entry.at, 'failed', 'webhook_removed');
      }
      file = target.file;
      const headers = signTurnWebhook(target.secret, deliveryId, this.clock.now(), delivery.body);
      if (target.token !== undefined) headers.authorization = `Bearer ${target.token}`;
      result = await sendWebhook(target.checked, headers, delivery.body, this.settings.timeoutMs, this.shutdown.signal);
      delivery.lastStatus = result.status;
      delete delivery.lastError;
    } catch (error) {
      // Aborted by shutdown: the outbox keeps it as it was.
      if (this.stopped) return;
      delivery.lastError = error instanceof ForbiddenWebhookUrl ? 'webhook_url_forbidden' : errorCode(error);
      if (error instanceof ForbiddenWebhookUrl) refusal = `webhook_url_forbidden (${error.message})`;
      delete delivery.lastStatus;
    }
    const verdict = verdictOf(result, delivery.attempts, this.settings, this.clock.now());
    TURNS_CHANNELS.webhookAttempt.publish({ outcome: verdict.kind });
    this.report(delivery, verdict, refusal ?? delivery.lastError);
    if (verdict.kind === 'retry') this.retrying.add(deliveryId);
    else this.retrying.delete(deliveryId);
    switch (verdict.kind) {
      case 'delivered':
        return this.finish(delivery, entry.at, 'delivered');
      case 'failed':
        if (verdict.disable && file && delivery.target.kind === 'subscription') {
          await this.subscriptions.disable(file, delivery.target.webhookId).catch(() => undefined);
        }
        return this.finish(delivery, entry.at, 'failed');
      case 'retry':
        delivery.nextAttemptAt = this.clock.now() + verdict.delayMs;
        await this.outbox.put(delivery, entry.at).catch(() => undefined);
        this.log.record(delivery, 'pending');
        this.schedule(deliveryId, delivery.nextAttemptAt);
        return;
      default: {
        const exhaustive: never = verdict;
        return exhaustive;
      }
    }
  }

  /** Logs a receiver turning failing (`warn`) or delivering again (`info`): once per change, whatever the retries. */
  private report(delivery: WebhookDelivery, verdict: Verdict, error: string | undefined): void {
    const key = receiverKey(delivery);
    const subscription =
      delivery.target.kind === 'subscription' ? { sessionId: delivery.sessionId, webhookId: delivery.target.webhookId } : undefined;
    const change = this.health.note(key, verdict.kind === 'delivered');
    if (change === 'recovered') this.logger.log(`${receiverName(subscription)} delivers again`);
    if (change === 'failing' || (verdict.kind === 'failed' && verdict.disable)) {
      const next: FailureReport['next'] =
        verdict.kind === 'retry' ? 'retry' : verdict.kind === 'failed' && verdict.disable ? 'disabled' : 'given_up';
      this.logger.warn(
        failureLine({
          subscription,
          status: delivery.lastStatus,
          error,
          attempts: delivery.attempts,
          maxAttempts: this.settings.maxAttempts,
          next,
        }),
      );
    }
    // A disabled subscription is sent nothing more: no recovery to wait for.
    if (verdict.kind === 'failed' && verdict.disable) this.health.forget(key);
  }

  /** The receiver of a delivery now: its subscription as currently stored (none once removed or disabled), checked again. */
  private async targetOf(
    delivery: WebhookDelivery,
  ): Promise<{ checked: CheckedTarget; secret: string; token?: string; file?: string } | undefined> {
    const { resolver } = this.settings;
    if (delivery.target.kind === 'operator') {
      const operator = this.settings.operator;
      return operator && { checked: await checkWebhookUrl(operator.url, ANY_ADDRESS, resolver), secret: operator.secret };
    }
    const { file, webhookId } = delivery.target;
    const webhook = (await this.subscriptions.read(file)).find((w) => w.webhookId === webhookId);
    if (!webhook || webhook.disabledAt !== undefined) return undefined;
    const checked = await checkWebhookUrl(webhook.url, this.settings.policy, resolver);
    return { checked, secret: webhook.secret, token: webhook.token, file };
  }

  private async finish(delivery: WebhookDelivery, at: number, state: 'delivered' | 'failed', lastError?: string): Promise<void> {
    this.retrying.delete(delivery.deliveryId);
    if (lastError !== undefined) delivery.lastError = lastError;
    await this.outbox.remove(delivery.deliveryId, at).catch(() => undefined);
    this.log.record(delivery, state);
  }
}

/** A delivery's receiver, as its health is kept. */
function receiverKey(delivery: WebhookDelivery): string {
  return delivery.target.kind === 'operator' ? 'operator' : `${delivery.sessionId}/${delivery.target.webhookId}`;
}

/** The entry of the schedule due last. */
function latest(scheduled: ReadonlyMap<string, number>): [string, number] {
  let found: [string, number] = ['', -Infinity];
  for (const [deliveryId, at] of scheduled) if (at > found[1]) found = [deliveryId, at];
  return found;
}

/** Where `at` goes in a list sorted by `at` (after its equals). */
function sortedIndex(list: ReadonlyArray<{ at: number }>, at: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (list[middle]!.at <= at) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** A connection failure as a short code for the log (never the URL, which may carry a secret path). */
function errorCode(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (typeof code === 'string' && /^[A-Z_]{2,40}$/.test(code)) return code;
  return (error as Error)?.message === 'timeout' ? 'timeout' : 'connection_failed';
}
