import { rewindSnapshotId, snapshotTurnIndex } from './rewind-snapshot-id.js';

const SID = '5c1d2a8e-7f7b-4a44-9a57-1f2e3d4c5b6a';

describe('rewind snapshot ids', () => {
  it('names a turn of the session and reads it back', () => {
    expect(rewindSnapshotId(SID, 3)).toBe(`${SID}########3`);
    expect(snapshotTurnIndex(SID, rewindSnapshotId(SID, 0))).toBe(0);
    expect(snapshotTurnIndex(SID, rewindSnapshotId(SID, 12))).toBe(12);
  });

  it('names no turn for a snapshot id of another session', () => {
    expect(snapshotTurnIndex(SID, rewindSnapshotId('00000000-0000-4000-8000-000000000000', 1))).toBe(-1);
  });

  it('reads anything else as a promptId', () => {
    for (const target of [
      'caa0b1c2-d3e4-4f50-8a6b-7c8d9e0f1a2b',
      `${SID}########`,
      `${SID}########x1`,
      `${SID}#######1`,
      `${SID}########1e3`,
    ]) {
      expect(snapshotTurnIndex(SID, target)).toBeUndefined();
    }
  });
});
