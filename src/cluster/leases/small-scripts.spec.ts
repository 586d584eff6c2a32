import { decodeHeartbeatReply, HEARTBEAT_SCRIPT } from './heartbeat-script.js';
import { decodeOutboxClaimReply, OUTBOX_CLAIM_SCRIPT } from './outbox-claim-script.js';
import { decodeReleaseReply, RELEASE_SCRIPT } from './release-script.js';

const data = { generation: 'G', lost: 'M' };

describe('the release, heartbeat and outbox claim scripts', () => {
  it('release: sends the lease and its fence; decodes whether it deleted it', () => {
    expect(RELEASE_SCRIPT.args({ lease: 'L', fence: 4 })).toEqual(['L', 4]);
    expect(decodeReleaseReply(1)).toEqual({ deleted: true });
    expect(decodeReleaseReply(0)).toEqual({ deleted: false });
  });

  it('heartbeat: sends its 3 keys, the record, ttl, refresh-only and the generation seen; decodes the generation now', () => {
    const args = HEARTBEAT_SCRIPT.args({ heartbeat: 'H', data, record: '{}', ttlMs: 1_000, refreshOnly: true, seen: 2 });
    expect(args).toEqual(['H', 'G', 'M', '{}', 1_000, '1', 2]);
    expect(decodeHeartbeatReply(5)).toEqual({ generation: 5 });
    expect(() => decodeHeartbeatReply(null)).toThrow('unexpected reply from the heartbeat script');
  });

  it('outbox claim: sends its 3 keys, node, both times and the generation seen; decodes claimed and the generation', () => {
    const args = OUTBOX_CLAIM_SCRIPT.args({ claim: 'C', data, node: 'node-a', ttlMs: 300, leaseMs: 1_000, seen: 2 });
    expect(args).toEqual(['C', 'G', 'M', 'node-a', 300, 1_000, 2]);
    expect(decodeOutboxClaimReply([1, 6])).toEqual({ claimed: true, generation: 6 });
    expect(decodeOutboxClaimReply([0, 7])).toEqual({ claimed: false, generation: 7 });
    expect(() => decodeOutboxClaimReply([1])).toThrow('unexpected reply from the outbox claim script');
  });
});
