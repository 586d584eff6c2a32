import { performance } from 'node:perf_hooks';

/**
 * Milliseconds on a clock that keeps counting while the process is paused and is never set back: what leases are
 * timed by (docs/cluster.md#inv-lease-2). Injected, so specs drive it by hand.
 *
 * @publicApi
 */
export abstract class MonotonicClock {
  abstract now(): number;
}

/** The process's monotonic clock, `performance.now()`. @publicApi */
export class PerformanceClock extends MonotonicClock {
  now(): number {
    return performance.now();
  }
}
