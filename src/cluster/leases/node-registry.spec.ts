import { HAS_REDIS } from '../../../test/support/redis-server.js';
import { A, B, leaseSpecWorld } from '../../../test/support/lease-spec.js';
import { NodeRegistry } from './node-registry.js';

/** Node heartbeats against a real Redis the spec starts itself (docs/cluster.md#inv-lease-3). */
(HAS_REDIS ? describe : describe.skip)('NodeRegistry (real redis-server)', () => {
  const world = leaseSpecWorld({ directoryLeaseMs: 60_000 });
  let nodes: NodeRegistry;
  beforeEach(() => {
    nodes = new NodeRegistry(world.directory);
  });

  it('a refreshing heartbeat keeps the expiry of the one there, and writes nothing when none is', async () => {
    const record = { nodeId: 'node-a', url: A.url, sessions: 1, startedAt: 1, heartbeatAt: 2 };
    await nodes.heartbeat(record, true);
    expect(await world.admin.exists('turns:node:node-a')).toBe(0);
    await nodes.heartbeat(record);
    await world.admin.pexpire('turns:node:node-a', 5_000);
    await nodes.heartbeat({ ...record, sessions: 2 }, true);
    expect(await world.admin.pttl('turns:node:node-a')).toBeLessThanOrEqual(5_000);
    expect((await nodes.nodes())[0]?.sessions).toBe(2);
  });

  it('lists nodes that heartbeat', async () => {
    await nodes.heartbeat({ nodeId: 'node-b', url: B.url, sessions: 2, startedAt: 1, heartbeatAt: 2 });
    await nodes.heartbeat({ nodeId: 'node-a', url: A.url, sessions: 0, startedAt: 1, heartbeatAt: 2 });
    expect((await nodes.nodes()).map((n) => [n.nodeId, n.sessions])).toEqual([
      ['node-a', 0],
      ['node-b', 2],
    ]);
    await nodes.forgetNode('node-a');
    expect((await nodes.nodes()).map((n) => n.nodeId)).toEqual(['node-b']);
  });
});
