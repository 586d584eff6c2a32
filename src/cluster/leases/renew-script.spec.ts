import { decodeRenewReply, RENEW_SCRIPT } from './renew-script.js';

describe('the renew script', () => {
  it('decodes one outcome per lease in the order sent; an unknown code is a lost lease', () => {
    expect(decodeRenewReply([1, 0, 2, 7])).toEqual(['extended', 'lost', 'recreated', 'lost']);
    expect(decodeRenewReply([])).toEqual([]);
    expect(() => decodeRenewReply(1)).toThrow('unexpected reply from the renew script');
  });

  it('sends the key count, the counter and each lease, then node, url, ttl and each fence (x: extend only)', () => {
    const args = RENEW_SCRIPT.args({
      fenceCounter: 'F',
      leases: [
        { key: 'L1', fence: 3 },
        { key: 'L2', fence: 4, extendOnly: true },
      ],
      node: 'node-a',
      url: 'http://a',
      ttlMs: 1_000,
    });
    expect(args).toEqual([3, 'F', 'L1', 'L2', 'node-a', 'http://a', 1_000, '3', 'x4']);
  });
});
