import { A, B, leaseSpecWorld, S1, S2 } from '../../../test/support/lease-spec.js';
import { HAS_REDIS } from '../../../test/support/redis-server.js';

const LEASE_MS = 60_000;

/** What a node may take for unowned, against a real Redis the spec starts itself (docs/cluster.md#inv-lease-8). */
(HAS_REDIS ? describe : describe.skip)('RedisSessionOwnership and sessions no node holds (real redis-server)', () => {
  const world = leaseSpecWorld({ directoryLeaseMs: LEASE_MS, ownershipLeaseMs: 1_000 });

  it('takes nothing for unowned within a lease of its connection to Redis (issue 36: one restarted empty has no live lease or heartbeat yet)', async () => {
    const a = world.ownershipOf(A);
    world.clock.time = world.directory.connectedAt + 1_000;
    expect(a.mayClaimUnowned()).toBe(false);
    world.clock.time += 1;
    expect(a.mayClaimUnowned()).toBe(true);
  });

  it('sees a session unowned only at the second of two lookups a lease apart that found no lease, over one connection', async () => {
    const b = world.ownershipOf(B);
    expect(await b.seenUnowned(S1)).toBe(false); // first sighting
    world.clock.time += 999;
    expect(await b.seenUnowned(S1)).toBe(false); // not a lease yet
    world.clock.time += 1;
    expect(await b.seenUnowned(S1)).toBe(true);
    // A lease between two lookups (its owner renewed) starts over.
    expect(await b.seenUnowned(S2)).toBe(false);
    await world.ownershipOf(A).claim(S2);
    world.clock.time += 1_000;
    expect(await b.seenUnowned(S2)).toBe(false);
    await world.admin.del(`turns:lease:${S2}`);
    expect(await b.seenUnowned(S2)).toBe(false);
    world.clock.time += 1_000;
    expect(await b.seenUnowned(S2)).toBe(true);
  });

  it("stamps a connection on the ownership's clock, so a reconnect is taken for a lease old only by that clock", async () => {
    const own = world.client();
    const reconnecting = world.directoryOver(own, LEASE_MS);
    await reconnecting.ready(5_000);
    const a = world.ownershipOf(A, reconnecting);
    world.clock.time = 1_000_000;
    const reconnected = new Promise((resolve) => own.once('ready', resolve));
    own.disconnect(true);
    await reconnected;
    expect(reconnecting.connectedAt).toBe(1_000_000);
    world.clock.time += 1_000;
    expect(a.mayClaimUnowned()).toBe(false);
    world.clock.time += 1;
    expect(a.mayClaimUnowned()).toBe(true);
  });
});
