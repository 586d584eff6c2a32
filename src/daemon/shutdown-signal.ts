import { Clock, SystemClock } from '../common/clock.js';

/** The same signal again within this long is the first one delivered twice, not a second one. */
export const REPEATED_SIGNAL_MS = 500;

/** What a stop signal means now: start the shutdown, ignore it (a repeat), or exit at once. */
export type ShutdownStep = 'shut down' | 'repeat' | 'exit now';

/**
 * The daemon's rule for SIGINT/SIGTERM: the first one shuts down gracefully, a second one exits at once. A
 * Ctrl-C under `npm start` reaches the daemon twice at once (from the terminal, and forwarded by npm): the same
 * signal within {@link REPEATED_SIGNAL_MS} of the first is that one delivered twice.
 */
export class ShutdownSignal {
  private first?: { signal: NodeJS.Signals; at: number };

  constructor(private readonly clock: Clock = new SystemClock()) {}

  receive(signal: NodeJS.Signals): ShutdownStep {
    const now = this.clock.now();
    if (!this.first) {
      this.first = { signal, at: now };
      return 'shut down';
    }
    return this.first.signal === signal && now - this.first.at < REPEATED_SIGNAL_MS ? 'repeat' : 'exit now';
  }
}
