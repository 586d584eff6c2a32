import { LineTooLargeError, NotRegularFileError, SnapshotChangedError, transcriptApiError } from './transcript-errors.js';

describe('transcriptApiError', () => {
  const sid = '00000000-0000-4000-8000-000000000001';

  it('maps each file error to its structured API error', () => {
    expect(transcriptApiError(sid, new NotRegularFileError(), 10)).toMatchObject({ status: 409, code: 'transcript_unavailable' });
    expect(transcriptApiError(sid, new SnapshotChangedError(), 10)).toMatchObject({ status: 409, code: 'transcript_snapshot_unavailable' });
    expect(transcriptApiError(sid, new LineTooLargeError(99), 10)).toMatchObject({
      status: 413,
      code: 'transcript_page_too_large',
      details: expect.objectContaining({ pageBytes: 99, maxBytes: 10 }),
    });
  });

  it('returns any other error as it is', () => {
    const other = new Error('other');
    expect(transcriptApiError(sid, other, 10)).toBe(other);
  });
});
