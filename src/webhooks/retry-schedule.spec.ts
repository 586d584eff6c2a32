import fc from 'fast-check';
import { MAX_RETRY_AFTER_MS, RETRY_SCHEDULE_MS, retryAfterMs, retryDelayMs } from './retry-schedule.js';

describe('retryDelayMs', () => {
  it('follows about 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h at the default base (top of the jitter)', () => {
    const top = () => 1 - Number.EPSILON;
    expect(RETRY_SCHEDULE_MS.map((_, i) => Math.round(retryDelayMs(i + 1, 5_000, top) / 1000))).toEqual([
      5, 30, 120, 600, 1800, 3600, 10800, 21600,
    ]);
    expect(retryDelayMs(20, 5_000, top)).toBe(retryDelayMs(8, 5_000, top));
  });

  it('scales the whole schedule with the base', () => {
    expect(retryDelayMs(1, 10, () => 0.5)).toBe(5);
    expect(retryDelayMs(2, 10, () => 0.5)).toBe(30);
  });

  it('jitters fully: uniform from 0 to the step, never beyond (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 60_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (n, base, r) => {
          const cap = (RETRY_SCHEDULE_MS[Math.min(n, 8) - 1]! / 5_000) * base;
          const delay = retryDelayMs(n, base, () => r);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThanOrEqual(cap);
        },
      ),
    );
    expect(retryDelayMs(3, 5_000, () => 0)).toBe(0);
  });
});

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates, caps them, and ignores what it cannot read', () => {
    expect(retryAfterMs('3', 0)).toBe(3_000);
    expect(retryAfterMs(' 0 ', 0)).toBe(0);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(retryAfterMs(new Date(0).toUTCString(), 4_000)).toBe(0);
    expect(retryAfterMs('999999999', 0)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryAfterMs('soon', 0)).toBeUndefined();
    expect(retryAfterMs(undefined, 0)).toBeUndefined();
  });
});
