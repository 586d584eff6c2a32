import type { SettledTurnStatus } from './turn-status.js';

/**
 * Bounded read of settled results from a session's persisted transcript.
 * Abstract class used as the injection token; the reference implementation
 * is the runtime's `JsonlTranscriptScanService`. Failures are thrown as
 * structured `ApiException`s (`invalid_transcript_cursor`,
 * `transcript_snapshot_unavailable`, `transcript_page_too_large`,
 * `transcript_too_large`), never reported as "not found".
 *
 * @publicApi
 */
export abstract class TranscriptScanService {
  /** The persisted result of `promptId` within the scan window, if any. */
  abstract findTurnResult(sessionId: string, promptId: string): Promise<SettledTurnStatus | undefined>;
  /** The newest persisted result within the scan window, if any. */
  abstract findNewestTurnResult(sessionId: string): Promise<SettledTurnStatus | undefined>;
}
