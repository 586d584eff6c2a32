import type { SettledTurnStatus } from './turn-status.js';

/**
 * A value, or a promise of it: what a port may answer when it has the value at hand.
 *
 * @publicApi
 */
export type MaybePromise<T> = T | Promise<T>;

/**
 * Bounded read of settled results from a session's persisted transcript.
 * Abstract class used as the injection token; the reference implementation
 * is the runtime's `JsonlTranscriptScanService`, an in-memory one is
 * `InMemoryTranscriptScan` (`nest-turn-status/testing`).
 *
 * The contract: read only (never write, never load or resume a session);
 * bounded (a window of recent records, whatever the transcript's size);
 * results as persisted — settled wire shapes without `queuedAt`, within the
 * wire limits. Failures are thrown as structured `ApiException`s
 * (`invalid_transcript_cursor`, `transcript_snapshot_unavailable`,
 * `transcript_page_too_large`, `transcript_too_large`), never reported as
 * "not found"; "not found" is `undefined`, also for a session with no
 * transcript.
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
