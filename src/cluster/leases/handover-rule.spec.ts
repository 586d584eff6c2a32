import { mustAskPrevious, previousTrustEndsBy } from './handover-rule.js';

const B = { node: 'node-b', url: 'http://b' };

describe('mustAskPrevious', () => {
  it('asks another node whose heartbeat is there (its lease was lost, not expired)', () => {
    expect(mustAskPrevious('node-a', { holder: B, reset: false, emptied: false, previousAlive: true, selfAlive: true })).toBe(true);
  });

  it('asks another node when Redis lost its data, heartbeat or not (every heartbeat went with it)', () => {
    expect(mustAskPrevious('node-a', { holder: B, reset: true, emptied: false, previousAlive: false, selfAlive: true })).toBe(true);
  });

  it('asks another node when this node’s own heartbeat is gone too: Redis lost keys since its last tick (the counter may have caught up)', () => {
    expect(mustAskPrevious('node-a', { holder: B, reset: false, emptied: false, previousAlive: false, selfAlive: false })).toBe(true);
  });

  it('asks another node when Redis lost its data less than a lease ago, though the counter is past the floor and both heartbeats are back', () => {
    expect(mustAskPrevious('node-a', { holder: B, reset: false, emptied: true, previousAlive: false, selfAlive: true })).toBe(true);
  });

  it('asks nobody after a natural failover: no heartbeat, Redis kept its data', () => {
    expect(mustAskPrevious('node-a', { holder: B, reset: false, emptied: false, previousAlive: false, selfAlive: true })).toBe(false);
  });

  it('asks nobody when the previous claim was its own, or its holder is unknown (an earlier version’s fence file)', () => {
    expect(mustAskPrevious('node-b', { holder: B, reset: true, emptied: false, previousAlive: true, selfAlive: true })).toBe(false);
    expect(mustAskPrevious('node-a', { reset: true, emptied: false, previousAlive: true, selfAlive: true })).toBe(false);
  });
});

describe('previousTrustEndsBy', () => {
  it('is a whole lease after the claim was answered (the old owner trusts 80% of one after a renewal sent before)', () => {
    expect(previousTrustEndsBy(1_000, 3_000)).toBe(4_000);
  });
});
