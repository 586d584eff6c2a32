import { decodeReleaseReply, RELEASE_SCRIPT } from './release-script.js';

describe('the release script', () => {
  it('sends the lease and its fence; decodes whether it deleted it', () => {
    expect(RELEASE_SCRIPT.args({ lease: 'L', fence: 4 })).toEqual(['L', 4]);
    expect(decodeReleaseReply(1)).toEqual({ deleted: true });
    expect(decodeReleaseReply(0)).toEqual({ deleted: false });
    expect(() => decodeReleaseReply('OK')).toThrow('unexpected reply from the release script');
  });
});
