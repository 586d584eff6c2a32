import { isRetryableAdmission, pollDelayMs, retryAfterMs, RetryPolicy, type ExchangeOutcome } from './retry-policy.js';

const unreachable: ExchangeOutcome = { unreachable: true };
const answer = (status: number, retryAfter: string | null = null, code?: string): ExchangeOutcome => ({ status, code, retryAfter });
const read = { repeatable: true };

describe('RetryPolicy', () => {
  let now = 0;
  const policy = (retries: number) =>
    new RetryPolicy(
      retries,
      () => 0.5,
      () => now,
    );
  beforeEach(() => (now = 1_000_000));

  it('retries nothing of a request a repeat could do twice (a write without an Idempotency-Key)', () => {
    const write = { repeatable: false, admission: true, unavailableUntil: now + 60_000 };
    expect(
      [unreachable, answer(503, '1'), answer(409, null, 'idempotency_key_in_flight')].map((o) => policy(5).delayMs(o, 0, write)),
    ).toEqual([undefined, undefined, undefined]);
  });

  it('sends again what got no answer, pausing 250 ms and doubling, `retries` times', () => {
    const delays = [0, 1, 2, 3].map((retried) => policy(3).delayMs(unreachable, retried, read));
    expect(delays).toEqual([250, 500, 1_000, undefined]);
    expect(policy(0).delayMs(unreachable, 0, read)).toBeUndefined();
  });

  it('waits out a 503 that says when to come back, with backoff, `retries` times; one without Retry-After is final', () => {
    expect([0, 1, 2].map((retried) => policy(2).delayMs(answer(503, '1'), retried, read))).toEqual([1_000, 1_500, undefined]);
    expect(policy(2).delayMs(answer(503, '4'), 0, read)).toBe(4_000);
    expect(policy(2).delayMs(answer(503), 0, read)).toBeUndefined();
  });

  it('retries, for a keyed admission only, the answers that processed nothing', () => {
    const admission = { repeatable: true, admission: true };
    const retried = (outcome: ExchangeOutcome, scope: typeof read) => policy(2).delayMs(outcome, 0, scope) !== undefined;
    const outcomes = [answer(409, '1', 'idempotency_key_in_flight'), answer(502), answer(504)];
    expect(outcomes.map((o) => retried(o, admission))).toEqual([true, true, true]);
    expect(outcomes.map((o) => retried(o, read))).toEqual([false, false, false]);
    const processed = [answer(409, null, 'session_busy'), answer(422, null, 'idempotency_key_reused'), answer(400), answer(500)];
    expect(processed.map((o) => retried(o, admission))).toEqual([false, false, false, false]);
  });

  it('never retries a success, a 304, a 404 or a 500', () => {
    expect([200, 202, 304, 404, 500].map((status) => policy(5).delayMs(answer(status, '1'), 0, read))).toEqual(Array(5).fill(undefined));
  });

  it('waits out a 503 until `unavailableUntil` whatever the count, no pause running past it; no answer still counts', () => {
    const until = { repeatable: true, unavailableUntil: now + 2_500 };
    expect(policy(0).delayMs(answer(503, '1'), 50, until)).toBe(2_500); // backoff capped at 10 s, then at the time left
    expect(policy(0).delayMs(answer(503, '1'), 0, until)).toBe(1_000);
    now += 2_500;
    expect(policy(0).delayMs(answer(503, '1'), 0, until)).toBeUndefined();
    expect(policy(0).delayMs(unreachable, 0, { repeatable: true, unavailableUntil: now + 60_000 })).toBeUndefined();
  });
});

describe('retryAfterMs', () => {
  it('reads delay-seconds and an HTTP-date (a past one is now), and nothing else', () => {
    const now = Date.parse('Wed, 02 Dec 2026 06:00:00 GMT');
    expect(retryAfterMs('3', now)).toBe(3_000);
    expect(retryAfterMs('Wed, 02 Dec 2026 06:00:05 GMT', now)).toBe(5_000);
    expect(retryAfterMs('Wed, 02 Dec 2026 05:00:00 GMT', now)).toBe(0);
    expect([retryAfterMs('soon', now), retryAfterMs('-1', now), retryAfterMs(null, now)]).toEqual([undefined, undefined, undefined]);
  });

  it('ignores an IMF-fixdate whose fields are impossible, rather than pausing NaN ms (issue 36)', () => {
    const now = Date.parse('Wed, 02 Dec 2026 06:00:00 GMT');
    expect(retryAfterMs('Wed, 02 Dec 2026 25:00:00 GMT', now)).toBeUndefined();
    expect(retryAfterMs('Wed, 99 Dec 2026 06:00:00 GMT', now)).toBeUndefined();
    expect(pollDelayMs('Wed, 02 Dec 2026 25:00:00 GMT', 0, () => 0.5, now)).toBe(1_000);
  });
});

describe('isRetryableAdmission', () => {
  it('retries only answers that processed nothing', () => {
    expect(isRetryableAdmission(409, 'idempotency_key_in_flight')).toBe(true);
    expect(isRetryableAdmission(502, undefined)).toBe(true);
    expect(isRetryableAdmission(409, 'session_busy')).toBe(false);
    expect(isRetryableAdmission(503, 'prompt_queue_full')).toBe(false);
    expect(isRetryableAdmission(500, 'internal_error')).toBe(false);
  });
});

describe('pollDelayMs', () => {
  it('never polls faster than Retry-After, backs off, stays under 10 s, and jitters within ±20%', () => {
    expect(pollDelayMs('1', 0, () => 0.5)).toBe(1_000);
    expect(pollDelayMs('2', 0, () => 0)).toBe(2_000); // jitter never goes under the server's hint
    expect(pollDelayMs('1', 3, () => 0.5)).toBe(3_375);
    expect(pollDelayMs('1', 20, () => 1)).toBe(10_000);
    expect(pollDelayMs(null, 0, () => 0.5)).toBe(1_000);
    expect(pollDelayMs('Wed, 02 Dec 2026 06:00:03 GMT', 0, () => 0, Date.parse('Wed, 02 Dec 2026 06:00:00 GMT'))).toBe(3_000);
    for (let i = 0; i < 100; i += 1) {
      const delay = pollDelayMs('1', 2, Math.random);
      expect(delay).toBeGreaterThanOrEqual(1_800);
      expect(delay).toBeLessThanOrEqual(2_700);
    }
  });
});
