import type { ClusterNode } from './cluster-node.js';
import type { ClusterSettings } from './cluster-options.js';
import type { LeaseDirectory } from './lease-directory.js';
import { RedisOutboxClaims } from './redis-outbox-claims.js';

describe('RedisOutboxClaims.active (issue 36: adopt only the dead)', () => {
  const LEASE = 1_000;
  const directory = { connected: true, connectedAt: 10_000 } as LeaseDirectory;
  const node = { listening: true } as ClusterNode;
  const claims = new RedisOutboxClaims(directory, node, { leaseMs: LEASE } as ClusterSettings);

  it('takes part only over a connection older than a lease: a Redis that restarted empty has no heartbeat of live nodes yet', () => {
    claims.monotonic = () => 10_000 + LEASE;
    expect(claims.active()).toBe(false);
    claims.monotonic = () => 10_000 + LEASE + 1;
    expect(claims.active()).toBe(true);
    // Reconnected: the wait starts again.
    Object.assign(directory, { connectedAt: 10_000 + LEASE });
    expect(claims.active()).toBe(false);
  });

  it('never while disconnected, nor before the node serves', () => {
    Object.assign(directory, { connectedAt: 0, connected: false });
    claims.monotonic = () => 100_000;
    expect(claims.active()).toBe(false);
    Object.assign(directory, { connected: true });
    Object.assign(node, { listening: false });
    expect(claims.active()).toBe(false);
  });
});
