import fc from 'fast-check';
import { MAX_RETRY_AFTER_MS, RETRY_SCHEDULE_MS, retryAfterFloorMs, retryAfterMs, retryDelayMs } from './retry-schedule.js';

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

  it('reads digits or an HTTP date only: what Date.parse would take as a date is ignored (issue 36)', () => {
    const now = Date.UTC(2026, 11, 3);
    for (const header of ['-1', '-0', '+5', '1.5', '1e3', '0x10', '2027-01-01', 'Dec 4 2026', '12/04/2026']) {
      expect([header, retryAfterMs(header, now)]).toEqual([header, undefined]);
    }
    expect(retryAfterMs('Thursday, 03-Dec-26 00:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Thu Dec  3 00:01:00 2026', now)).toBe(60_000);
  });
});

describe('retryAfterFloorMs', () => {
  it('is a tenth of the schedule’s step: a tenth of the base after the first failure', () => {
    expect(RETRY_SCHEDULE_MS.map((_, i) => retryAfterFloorMs(i + 1, 5_000))).toEqual([
      500, 3_000, 12_000, 60_000, 180_000, 360_000, 1_080_000, 2_160_000,
    ]);
    expect(retryAfterFloorMs(1, 10)).toBe(1);
  });
});
