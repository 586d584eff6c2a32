/** Source of time, injected so tests control it. */
export abstract class Clock {
  /** Epoch milliseconds. */
  abstract now(): number;
}

/** The wall clock. */
export class SystemClock extends Clock {
  now(): number {
    return Date.now();
  }
}
