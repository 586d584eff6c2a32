import { attemptFailureOf, disables, nextStepOf, verdictOf } from './delivery-verdict.js';
import { ForbiddenWebhookUrl } from './webhook-url-guard.js';

const settings = { maxAttempts: 3, retryBaseMs: 1_000 };
const half = () => 0.5;

describe('verdictOf', () => {
  it('delivers on any 2xx', () => {
    for (const status of [200, 201, 204, 299]) expect(verdictOf({ status }, 1, settings, 0, half)).toEqual({ kind: 'delivered' });
  });

  it('disables on 410 at once', () => {
    expect(verdictOf({ status: 410 }, 1, settings, 0, half)).toEqual({ kind: 'failed', disable: true });
  });

  it('retries other answers and connection failures with the jittered backoff, until the last attempt', () => {
    expect(verdictOf({ status: 500 }, 1, settings, 0, half)).toEqual({ kind: 'retry', delayMs: 500 });
    expect(verdictOf({ status: 302 }, 2, settings, 0, half)).toEqual({ kind: 'retry', delayMs: 3_000 });
    expect(verdictOf(undefined, 1, settings, 0, half)).toEqual({ kind: 'retry', delayMs: 500 });
    expect(verdictOf({ status: 500 }, 3, settings, 0, half)).toEqual({ kind: 'failed' });
    expect(verdictOf(undefined, 3, settings, 0, half)).toEqual({ kind: 'failed' });
  });

  it('waits Retry-After on 429 and 503 only', () => {
    expect(verdictOf({ status: 429, retryAfter: '7' }, 1, settings, 0, half)).toEqual({ kind: 'retry', delayMs: 7_000 });
    expect(verdictOf({ status: 500, retryAfter: '7' }, 1, settings, 0, half)).toEqual({ kind: 'retry', delayMs: 500 });
    expect(verdictOf({ status: 503, retryAfter: 'later' }, 1, settings, 0, half)).toEqual({ kind: 'retry', delayMs: 500 });
  });

  it('ignores a Retry-After that is neither digits nor an HTTP date, and waits at least a tenth of the step (issue 36)', () => {
    // Date.parse('-1') is a date in year -1: it used to mean "now", again and again.
    expect(verdictOf({ status: 503, retryAfter: '-1' }, 1, settings, 0, half)).toEqual({ kind: 'retry', delayMs: 500 });
    expect(verdictOf({ status: 503, retryAfter: '0' }, 1, settings, 0, half)).toEqual({ kind: 'retry', delayMs: 100 });
    expect(verdictOf({ status: 429, retryAfter: '0' }, 2, settings, 0, half)).toEqual({ kind: 'retry', delayMs: 600 });
    expect(verdictOf({ status: 503, retryAfter: new Date(0).toUTCString() }, 1, settings, 60_000, half)).toEqual({
      kind: 'retry',
      delayMs: 100,
    });
  });

  it('spreads 8 attempts answered `503 Retry-After: 0` over 28 minutes at the default base, and `-1` over the backoff', () => {
    const defaults = { maxAttempts: 8, retryBaseMs: 5_000 };
    const waited = (retryAfter: string) => {
      let total = 0;
      for (let attempts = 1; attempts < 20; attempts++) {
        const verdict = verdictOf({ status: 503, retryAfter }, attempts, defaults, 0, half);
        if (verdict.kind !== 'retry') return total;
        total += verdict.delayMs;
      }
      throw new Error('more than 8 attempts');
    };
    // 0: the floors, 0.5 s + 3 s + 12 s + 1 min + 3 min + 6 min + 18 min; -1: the backoff (its middle, here).
    expect(waited('0')).toBe(1_695_500);
    expect(waited('-1')).toBe(8_477_500);
  });
});

describe('nextStepOf and disables', () => {
  it('names what happens after each verdict', () => {
    expect(nextStepOf({ kind: 'retry', delayMs: 5 })).toBe('retry');
    expect(nextStepOf({ kind: 'failed' })).toBe('given_up');
    expect(nextStepOf({ kind: 'failed', disable: true })).toBe('disabled');
    expect([{ kind: 'failed', disable: true } as const, { kind: 'failed' } as const, { kind: 'delivered' } as const].map(disables)).toEqual(
      [true, false, false],
    );
  });
});

describe('attemptFailureOf', () => {
  it('keeps a connection error code, and says timeout or connection_failed otherwise', () => {
    expect(attemptFailureOf(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).toEqual({
      error: 'ECONNREFUSED',
      reason: 'ECONNREFUSED',
    });
    expect(attemptFailureOf(new Error('timeout'))).toEqual({ error: 'timeout', reason: 'timeout' });
    expect(attemptFailureOf(Object.assign(new Error('x'), { code: 'not a code: http://secret/path' })).error).toBe('connection_failed');
    expect(attemptFailureOf(undefined).error).toBe('connection_failed');
  });

  it("records the SSRF guard's refusal, with its reason for the log only", () => {
    expect(attemptFailureOf(new ForbiddenWebhookUrl('loopback address'))).toEqual({
      error: 'webhook_url_forbidden',
      reason: 'webhook_url_forbidden (loopback address)',
    });
  });
});
