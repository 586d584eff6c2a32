import type { SettledTurnStatus } from './turn-status.js';

/**
 * A value, or a promise of it: what a port may answer when it has the value at hand.
 *
 * @publicApi
 */
export type MaybePromise<T> = T | Promise<T>;

/**
 * Bounded, read-only read of settled results from a session's persisted transcript; the injection token. "Not found"
 * is `undefined`, a failure an `ApiException` (docs/mounting.md#what-each-port-promises).
 *
 * @publicApi
 */
export abstract class TranscriptScanService {
  /**
   * The persisted result of `promptId` within the scan window (the newest
   * record of it), else `undefined`. A scan that reads memory may answer
   * without a promise; one that reads a file returns one.
   */
  abstract findTurnResult(sessionId: string, promptId: string): MaybePromise<SettledTurnStatus | undefined>;
  /** The newest persisted result within the scan window, else `undefined` (a value or a promise of it). */
  abstract findNewestTurnResult(sessionId: string): MaybePromise<SettledTurnStatus | undefined>;

  /**
   * Every persisted result within the same scan window, one per prompt (its
   * newest record), newest first — what `GET /session/:id/turns` reads. The
   * default knows only the newest result; override it to list the window.
   */
  async listRecent(sessionId: string): Promise<SettledTurnStatus[]> {
    const newest = await this.findNewestTurnResult(sessionId);
    return newest ? [newest] : [];
  }
}
