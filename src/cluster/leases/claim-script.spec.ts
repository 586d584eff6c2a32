import { CLAIM_SCRIPT, decodeClaimReply } from './claim-script.js';

describe('the claim script', () => {
  it('decodes a won claim by name, the fence sent as a string', () => {
    expect(decodeClaimReply([1, 'node-a', 'http://a', '7', 0, 1, 0, 1, 12])).toEqual({
      generation: 12,
      result: { won: true, fence: 7, reset: false, emptied: true, previousAlive: true, selfAlive: false },
    });
  });

  it('decodes a lost claim as the lease the other node holds', () => {
    expect(decodeClaimReply([0, 'node-b', 'http://b', '3', 0, 0, 0, 0, 4])).toEqual({
      generation: 4,
      result: { won: false, owner: { node: 'node-b', url: 'http://b', fence: 3 } },
    });
  });

  it('refuses a reply of another shape rather than guess', () => {
    expect(() => decodeClaimReply([1, 'node-a', 'http://a', '7'])).toThrow('unexpected reply from the claim script');
    expect(() => decodeClaimReply([1, 'node-a', 'http://a', 'x', 0, 0, 0, 0, 1])).toThrow('unexpected reply');
    expect(() => decodeClaimReply('OK')).toThrow('unexpected reply');
  });

  it('sends its 6 keys, then node, url, ttl, floor, whether to look at the previous heartbeat and the generation seen', () => {
    const args = CLAIM_SCRIPT.args({
      lease: 'L',
      fenceCounter: 'F',
      previousHeartbeat: 'P',
      ownHeartbeat: 'O',
      data: { generation: 'G', lost: 'M' },
      node: 'node-a',
      url: 'http://a',
      ttlMs: 1_000,
      floor: 5,
      lookAtPrevious: true,
      seen: 9,
    });
    expect(args).toEqual(['L', 'F', 'P', 'O', 'G', 'M', 'node-a', 'http://a', 1_000, 5, '1', 9]);
    expect(args.length - 6).toBe(6);
    expect(CLAIM_SCRIPT.numberOfKeys).toBe(6);
  });
});
