import { transcriptPageTooLarge, transcriptSnapshotUnavailable, transcriptUnavailable } from '../errors/api-errors.js';

/** A line over the page limit: no page can hold it. */
export class LineTooLargeError extends Error {
  constructor(readonly bytes: number) {
    super('line too large');
  }
}

/** The file no longer matches the snapshot (truncated, replaced, unreadable). */
export class SnapshotChangedError extends Error {}

/** The transcript path names something other than a regular file (a symlink, directory, FIFO…). */
export class NotRegularFileError extends Error {
  constructor() {
    super('transcript is not a regular file');
  }
}

/**
 * The structured API error of a file error met while reading a session's
 * transcript (for the recorder and the scanner alike); any other error is
 * returned as it is.
 */
export function transcriptApiError(sessionId: string, error: unknown, maxPageBytes: number): unknown {
  if (error instanceof NotRegularFileError) return transcriptUnavailable(sessionId);
  if (error instanceof SnapshotChangedError) return transcriptSnapshotUnavailable(sessionId);
  if (error instanceof LineTooLargeError) return transcriptPageTooLarge(sessionId, error.bytes, maxPageBytes);
  return error;
}
