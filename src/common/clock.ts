/**
 * Source of time, injected so tests control it.
 *
 * @publicApi
 */
export abstract class Clock {
  /** Epoch milliseconds. */
  abstract now(): number;
}

/**
 * The wall clock.
 *
 * @publicApi
 */
export class SystemClock extends Clock {
  now(): number {
    return Date.now();
  }
}
