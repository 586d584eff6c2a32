import { freshUntil, staleInOutage, usable } from './lease-clock.js';

const lease = (validUntil: number) => ({ fence: 1, epoch: 1, validUntil });

describe('lease clock', () => {
  it('trusts a lease for 80% of its time from when its renewal was sent', () => {
    expect(freshUntil(1_000, 10_000)).toBe(9_000);
  });

  it('a fresh lease is usable; a stale one only when Redis became unreachable while it was fresh', () => {
    expect(usable(lease(100), 99, undefined)).toBe(true);
    expect(usable(lease(100), 100, undefined)).toBe(false);
    expect(usable(lease(100), 500, 50)).toBe(true);
    // Paused past the lease, woke to an unreachable Redis: the outage began after it went stale.
    expect(usable(lease(100), 500, 300)).toBe(false);
  });

  it('only a lease already stale when Redis went away is renewed extend-only', () => {
    expect(staleInOutage(lease(100), 500, 300)).toBe(true);
    expect(staleInOutage(lease(100), 500, 50)).toBe(false);
    expect(staleInOutage(lease(100), 500, undefined)).toBe(false);
    expect(staleInOutage(lease(100), 50, 20)).toBe(false);
  });
});
