import type { TurnStatus } from '../turns/turn-status.js';

/**
 * A route answered with an error: its HTTP status, the `code` of its
 * `{error, code}` body (if any) and the whole body.
 *
 * @publicApi
 */
export class TurnsApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    readonly body: unknown,
  ) {
    super(
      `${status}${code ? ` ${code}` : ''}: ${typeof (body as { error?: unknown })?.error === 'string' ? (body as { error: string }).error : 'request failed'}`,
    );
    this.name = 'TurnsApiError';
  }
}

/**
 * A prompt seen before now answers 404: it left every bounded window (live
 * queue, in-memory overlay, transcript scan window). Its outcome is no
 * longer known to the daemon; it is not a new outcome.
 *
 * @publicApi
 */
export class TurnWindowExpiredError extends Error {
  constructor(
    readonly sessionId: string,
    readonly promptId: string,
    /** The last status seen before the window moved on. */
    readonly lastStatus: TurnStatus,
  ) {
    super(`prompt ${promptId} left the daemon's window (last seen ${lastStatus.state})`);
    this.name = 'TurnWindowExpiredError';
  }
}

/**
 * `waitForTurn` ran out of time before the prompt settled.
 *
 * @publicApi
 */
export class TurnWaitTimeoutError extends Error {
  constructor(
    readonly sessionId: string,
    readonly promptId: string,
    /** The last status seen (queued or running), if any. */
    readonly lastStatus: TurnStatus | undefined,
  ) {
    super(`prompt ${promptId} did not settle in time${lastStatus ? ` (last seen ${lastStatus.state})` : ''}`);
    this.name = 'TurnWaitTimeoutError';
  }
}
