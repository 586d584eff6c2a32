import { decodeOutboxClaimReply, OUTBOX_CLAIM_SCRIPT } from './outbox-claim-script.js';

describe('the outbox claim script', () => {
  it('sends its 3 keys, node, both times and the generation seen; decodes claimed and the generation by name', () => {
    const args = OUTBOX_CLAIM_SCRIPT.args({
      claim: 'C',
      data: { generation: 'G', lost: 'M' },
      node: 'node-a',
      ttlMs: 300,
      leaseMs: 1_000,
      seen: 2,
    });
    expect(args).toEqual(['C', 'G', 'M', 'node-a', 300, 1_000, 2]);
    expect(OUTBOX_CLAIM_SCRIPT.numberOfKeys).toBe(3);
    expect(decodeOutboxClaimReply([1, 6])).toEqual({ claimed: true, generation: 6 });
    expect(decodeOutboxClaimReply([0, 7])).toEqual({ claimed: false, generation: 7 });
    expect(() => decodeOutboxClaimReply([1])).toThrow('unexpected reply from the outbox claim script');
  });
});
