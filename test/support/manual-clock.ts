import { Clock } from '../../src/common/clock.js';

/** A clock the spec sets by hand (epoch ms). */
export class ManualClock extends Clock {
  constructor(public time = 1_000) {
    super();
  }

  now(): number {
    return this.time;
  }
}
