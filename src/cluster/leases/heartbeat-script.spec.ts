import { decodeHeartbeatReply, HEARTBEAT_SCRIPT } from './heartbeat-script.js';

describe('the heartbeat script', () => {
  it('sends its 3 keys, the record, ttl, refresh-only and the generation seen; decodes the generation now', () => {
    const args = HEARTBEAT_SCRIPT.args({
      heartbeat: 'H',
      data: { generation: 'G', lost: 'M' },
      record: '{}',
      ttlMs: 1_000,
      refreshOnly: true,
      seen: 2,
    });
    expect(args).toEqual(['H', 'G', 'M', '{}', 1_000, '1', 2]);
    expect(HEARTBEAT_SCRIPT.numberOfKeys).toBe(3);
    expect(decodeHeartbeatReply(5)).toEqual({ generation: 5 });
    expect(() => decodeHeartbeatReply(null)).toThrow('unexpected reply from the heartbeat script');
  });
});
