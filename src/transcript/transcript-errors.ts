import { HttpStatus } from '@nestjs/common';
import { ApiException } from '../common/api-exception.js';

/** The structured scan errors of SPEC §3; never reported as "not found". */
export const TranscriptErrors = {
  invalidCursor: (sessionId: string) =>
    new ApiException(HttpStatus.BAD_REQUEST, 'invalid_transcript_cursor', 'Invalid transcript cursor', { sessionId }),
  snapshotUnavailable: (sessionId: string) =>
    new ApiException(HttpStatus.CONFLICT, 'transcript_snapshot_unavailable', 'Transcript changed or became unreadable during the scan', { sessionId }),
  pageTooLarge: (sessionId: string, pageBytes: number, maxBytes: number) =>
    new ApiException(HttpStatus.PAYLOAD_TOO_LARGE, 'transcript_page_too_large', 'A transcript record exceeds the page size', { sessionId, pageBytes, maxBytes }),
  tooLarge: (sessionId: string, snapshotSize: number, maxBytes: number) =>
    new ApiException(HttpStatus.PAYLOAD_TOO_LARGE, 'transcript_too_large', 'Transcript exceeds the snapshot size limit', { sessionId, snapshotSize, maxBytes }),
};
