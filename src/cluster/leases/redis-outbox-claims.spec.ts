import { HAS_REDIS } from '../../../test/support/redis-server.js';
import { leaseSpecWorld } from '../../../test/support/lease-spec.js';
import { specNode } from '../../../test/support/redis-ownership.js';
import { clusterSettings } from '../node/cluster.settings.js';
import type { UnownedSessions } from '../../sessions/unowned-sessions.js';
import { NodeRegistry } from './node-registry.js';
import { RedisOutboxClaims } from './redis-outbox-claims.js';

const LEASE_MS = 60_000;

/** Who adopts a dead node's webhook outbox, against a real Redis the spec starts itself (docs/cluster.md#inv-lease-6). */
(HAS_REDIS ? describe : describe.skip)('RedisOutboxClaims (real redis-server)', () => {
  const world = leaseSpecWorld({ directoryLeaseMs: LEASE_MS });
  const claimsOf = (nodeId: string) => {
    const settings = clusterSettings({ redisUrl: world.redis.url, nodeId, leaseMs: LEASE_MS });
    const unowned = { mayClaimUnowned: () => true } as unknown as UnownedSessions;
    return new RedisOutboxClaims(world.directory, new NodeRegistry(world.directory), specNode(nodeId), unowned, settings);
  };

  it('no outbox is adopted within a lease of a data loss: live nodes may have no heartbeat until their next tick', async () => {
    const claims = claimsOf('node-a');
    await world.admin.flushall();
    expect(await claims.claim('node-x')).toBe(false);
    expect(await claims.claim('node-x')).toBe(false);
    await world.admin.del('turns:data-lost'); // the lease has passed
    expect(await claims.claim('node-x')).toBe(true);
  });

  it('lets one node at a time claim a dead node’s webhook outbox, for a lease', async () => {
    const [a, b] = [claimsOf('node-a'), claimsOf('node-b')];
    expect(await a.claim('node-x')).toBe(true);
    expect(await b.claim('node-x')).toBe(false);
    expect(await b.claim('node-y')).toBe(true);
    const ttl = await world.admin.pttl('turns:webhooks:adopt:node-x');
    expect(ttl).toBeGreaterThan(LEASE_MS - 5_000);
    expect(ttl).toBeLessThanOrEqual(LEASE_MS);
    await world.admin.del('turns:webhooks:adopt:node-x'); // the claim has expired
    expect(await b.claim('node-x')).toBe(true);
    expect(await world.admin.get('turns:webhooks:adopt:node-x')).toBe('node-b');
  });

  it('counts live nodes by their heartbeat, and is active only while the ownership may take what is unowned', async () => {
    await new NodeRegistry(world.directory).heartbeat({ nodeId: 'node-b', url: 'http://b', sessions: 0, startedAt: 1, heartbeatAt: 2 });
    const claims = claimsOf('node-a');
    expect([...(await claims.liveNodeIds())]).toEqual(['node-b']);
    expect(claims.active()).toBe(true);
    expect(claims.intervalMs).toBe(LEASE_MS);
  });
});
