/** First pause before a retry after a failure to reach the daemon; it doubles each time. */
const UNREACHABLE_DELAY_MS = 250;
/** Polling without long-poll, and waiting out a 503: never faster than the server's hint, never slower than this. */
const MAX_POLL_DELAY_MS = 10_000;

const IMF_FIXDATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * What one exchange came to, as far as sending it again goes: it never got an
 * answer (could not connect, reset, or its time limit ran out), or this one.
 */
export type ExchangeOutcome = { unreachable: true } | { status: number; code?: string; retryAfter: string | null };

/** What a request allows to be sent again. */
export interface RetryScope {
  /** A read, or a write with an `Idempotency-Key`: a repeat cannot do the work twice. Nothing else is retried. */
  repeatable: boolean;
  /** A keyed admission: answers that processed nothing (`409 idempotency_key_in_flight`, `502`, `504`) are retried too. */
  admission?: boolean;
  /** Wait out a `503` with `Retry-After` until this time (epoch ms) whatever the retry count says; no pause runs past it. */
  unavailableUntil?: number;
}

/**
 * The milliseconds a `Retry-After` asks for: delay-seconds or an HTTP-date
 * (RFC 9110 §10.2.3, IMF-fixdate); undefined when absent or neither.
 */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  if (/^\d+$/.test(header)) return Number(header) * 1000;
  // The IMF-fixdate form senders must send; Date.parse alone takes too much ("-1" is a year), and that shape with
  // impossible fields ("25:00:00") is NaN, which would be a pause of no time.
  const date = IMF_FIXDATE.test(header) ? Date.parse(header) : NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The next pause, after `repeats` answers in a row that asked to come back
 * (unchanged polls, or 503s): the server's `Retry-After` (else 1 s) as the
 * floor, growing by half each time up to 10 s, with ±20% jitter so clients do
 * not come back in step.
 *
 * @internal exported for its spec
 */
export function pollDelayMs(retryAfter: string | null, repeats: number, random: () => number = Math.random, now = Date.now()): number {
  const hinted = retryAfterMs(retryAfter, now) ?? 1000;
  const base = Math.min(MAX_POLL_DELAY_MS, Math.max(hinted, 250) * 1.5 ** Math.min(repeats, 10));
  return Math.round(Math.min(MAX_POLL_DELAY_MS, Math.max(hinted, base * (0.8 + 0.4 * random()))));
}

/**
 * True when a keyed admission answered so may be sent again with its key
 * (beyond what every repeatable request retries): the first is still in
 * flight there, or a gateway could not pass it on.
 *
 * @internal exported for its spec
 */
export function isRetryableAdmission(status: number, code: string | undefined): boolean {
  return (status === 409 && code === 'idempotency_key_in_flight') || status === 502 || status === 504;
}

/**
 * The client's one rule for sending a request again: which outcomes retry
 * (no answer; a `503` with `Retry-After`; for a keyed admission, an answer
 * that processed nothing), after how long (doubling from 250 ms without an
 * answer; the server's `Retry-After` with backoff and jitter otherwise), and
 * how often (`retries` times a call; a 503 until `unavailableUntil` when given).
 */
export class RetryPolicy {
  constructor(
    private readonly retries: number,
    private readonly random: () => number = Math.random,
    private readonly now: () => number = Date.now,
  ) {}

  /** The pause before sending again, after `retried` retries, the last ending in `outcome`; undefined: give up with it. */
  delayMs(outcome: ExchangeOutcome, retried: number, scope: RetryScope): number | undefined {
    if (!scope.repeatable) return undefined;
    if ('unreachable' in outcome) return retried < this.retries ? UNREACHABLE_DELAY_MS * 2 ** retried : undefined;
    const { status, code, retryAfter } = outcome;
    const unavailable = status === 503 && retryAfter !== null;
    if (unavailable && scope.unavailableUntil !== undefined) {
      const left = scope.unavailableUntil - this.now();
      return left > 0 ? Math.min(pollDelayMs(retryAfter, retried, this.random, this.now()), left) : undefined;
    }
    if (retried >= this.retries) return undefined;
    const retryable = unavailable || (scope.admission === true && isRetryableAdmission(status, code));
    return retryable ? pollDelayMs(retryAfter, retried, this.random, this.now()) : undefined;
  }
}
