import type { Logger } from '@nestjs/common';

/** stderr lines logged per session per window, so a chatty agent cannot flood the log. */
const STDERR_LINES_PER_WINDOW = 50;
const STDERR_WINDOW_MS = 10_000;

/** An agent's stderr in the daemon log: prefixed with the session id, rate-limited. */
export class AgentStderrLog {
  private windowStart = 0;
  private count = 0;
  private dropped = 0;

  constructor(
    private readonly logger: Logger,
    private readonly sessionId: string,
    private readonly now: () => number = Date.now,
  ) {}

  line(text: string): void {
    const now = this.now();
    if (now - this.windowStart >= STDERR_WINDOW_MS) {
      if (this.dropped > 0) this.logger.warn(`[agent ${this.sessionId}] ${this.dropped} stderr lines dropped`);
      this.windowStart = now;
      this.count = 0;
      this.dropped = 0;
    }
    if (this.count >= STDERR_LINES_PER_WINDOW) {
      this.dropped += 1;
      return;
    }
    this.count += 1;
    this.logger.warn(`[agent ${this.sessionId}] ${text.slice(0, 1_000)}`);
  }
}
