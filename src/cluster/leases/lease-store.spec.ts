import { HAS_REDIS } from '../../../test/support/redis-server.js';
import { A, B, leaseSpecWorld, S1, S2 } from '../../../test/support/lease-spec.js';
import { LeaseStore } from './lease-store.js';
import { NodeRegistry } from './node-registry.js';

const LEASE_MS = 60_000;

/** Lease rules against a real Redis the spec starts itself: claims, fences, renewals, look-ups (docs/cluster.md#inv-lease-1). */
(HAS_REDIS ? describe : describe.skip)('LeaseStore (real redis-server)', () => {
  const world = leaseSpecWorld({ directoryLeaseMs: LEASE_MS });
  let leases: LeaseStore;
  let nodes: NodeRegistry;
  beforeEach(() => {
    leases = new LeaseStore(world.directory);
    nodes = new NodeRegistry(world.directory);
  });

  it('the first claim wins; another node gets the holder; the holder may claim again with a larger fence', async () => {
    const first = await leases.claim(S1, A);
    expect(first).toEqual({ won: true, fence: 1, reset: false, emptied: false, previousAlive: false, selfAlive: false });
    expect(await leases.claim(S1, B)).toEqual({ won: false, owner: { ...A, fence: 1 } });
    expect(await leases.claim(S1, A)).toMatchObject({ won: true, fence: 2 });
    expect(await leases.owner(S1)).toEqual({ ...A, fence: 2 });
    expect(await world.admin.pttl(`turns:lease:${S1}`)).toBeGreaterThan(LEASE_MS - 5_000);
  });

  it('a claim after Redis lost its counter still gets a fence above the floor it is given, and the counter follows', async () => {
    expect(await leases.claim(S1, A, 41)).toMatchObject({ won: true, fence: 42, reset: true });
    expect(await leases.claim(S2, B)).toMatchObject({ won: true, fence: 43, reset: false });
    expect(await leases.claim(S2, B, 10)).toMatchObject({ won: true, fence: 44, reset: false });
  });

  it('a won claim says whether the previous owner and this node heartbeat, looked at in the same step', async () => {
    await nodes.heartbeat({ nodeId: 'node-b', url: B.url, sessions: 1, startedAt: 1, heartbeatAt: 2 });
    expect(await leases.claim(S1, A, 0, 'node-b')).toMatchObject({ won: true, reset: false, previousAlive: true, selfAlive: false });
    expect(await leases.claim(S2, A, 0, 'node-c')).toMatchObject({ won: true, previousAlive: false });
    // Not asked about: not looked at.
    expect(await leases.claim(S2, A)).toMatchObject({ won: true, previousAlive: false });
    await nodes.heartbeat({ nodeId: 'node-a', url: A.url, sessions: 1, startedAt: 1, heartbeatAt: 2 });
    expect(await leases.claim(S2, A)).toMatchObject({ won: true, selfAlive: true });
  });

  it('a claim within a lease of a data loss says so, though the counter is past the floor and both heartbeats are back (chaos SEED=6151 schedule 5)', async () => {
    await leases.claim(S2, B, 10);
    await world.admin.flushall();
    // The claimer's tick comes first and other claims raise the counter: neither heartbeat nor counter tells.
    await nodes.heartbeat({ nodeId: 'node-a', url: A.url, sessions: 0, startedAt: 1, heartbeatAt: 2 });
    const started = await world.admin.pttl('turns:data-lost');
    expect(started).toBeGreaterThan(LEASE_MS - 5_000);
    await nodes.heartbeat({ nodeId: 'node-b', url: B.url, sessions: 1, startedAt: 1, heartbeatAt: 2 });
    await leases.claim(S2, B, 10);
    expect(await leases.claim(S1, A, 1, 'node-b')).toMatchObject({
      won: true,
      reset: false,
      emptied: true,
      previousAlive: true,
      selfAlive: true,
    });
    // One lease from the first script that saw the loss (the heartbeat): later ones do not set it again.
    expect(await world.admin.pttl('turns:data-lost')).toBeLessThanOrEqual(started);
    await world.admin.del('turns:data-lost'); // the lease has passed
    expect(await leases.claim(S1, A, 1, 'node-b')).toMatchObject({ won: true, emptied: false });
  });

  it('a claim after Redis went back to older data (a restore from a snapshot, a replica promoted behind) says so, the sentinel there', async () => {
    const record = { nodeId: 'node-a', url: A.url, sessions: 0, startedAt: 1, heartbeatAt: 2 };
    await nodes.heartbeat(record);
    const before = Number(await world.admin.get('turns:data'));
    await nodes.heartbeat(record);
    // The snapshot was taken between the two heartbeats: the second one's count is lost.
    await world.admin.set('turns:data', String(before));
    expect(await leases.claim(S1, A)).toMatchObject({ won: true, emptied: true });
    // Another node that had seen nothing yet finds the marker standing.
    const other = world.directoryOver(world.client());
    await other.ready(5_000);
    const otherLeases = new LeaseStore(other);
    expect(await otherLeases.claim(S2, B)).toMatchObject({ won: true, emptied: true });
    await world.admin.del('turns:data-lost');
    // The count goes on from there: no loss seen again.
    expect(await leases.claim(S1, A)).toMatchObject({ won: true, emptied: false });
    expect(await otherLeases.claim(S2, B)).toMatchObject({ won: true, emptied: false });
  });

  it('renewal extends a lease only while it carries this node and its fence (a fence another node drew after a reset is not ours)', async () => {
    await world.admin.hset(`turns:lease:${S1}`, 'node', B.node, 'url', B.url, 'fence', '1');
    expect(await leases.renew([{ sessionId: S1, fence: 1 }], A)).toEqual(['lost']);
    expect(await leases.owner(S1)).toEqual({ ...B, fence: 1 });
  });

  it('concurrent claims from two nodes make exactly one owner', async () => {
    const other = world.directoryOver(world.client());
    await other.ready(5_000);
    const otherLeases = new LeaseStore(other);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? leases.claim(S1, A) : otherLeases.claim(S1, B))));
    const owner = (await leases.owner(S1))!;
    for (const result of results) {
      if (!result.won) expect(result.owner.node).toBe(owner.node);
    }
    // Every win went to the one node that owns it now.
    const wonBy = results.flatMap((r, i) => (r.won ? [i % 2 ? 'node-a' : 'node-b'] : []));
    expect(wonBy.length).toBeGreaterThan(0);
    expect(new Set(wonBy)).toEqual(new Set([owner.node]));
  });

  it('renew keeps its own leases, reports a taken one, and re-creates one that vanished without moving the counter back', async () => {
    const a1 = await leases.claim(S1, A);
    const a2 = await leases.claim(S2, A);
    if (!a1.won || !a2.won) throw new Error('claims should win');
    await world.admin.del(`turns:lease:${S1}`);
    const b1 = await leases.claim(S1, B);
    expect(b1.won).toBe(true);
    expect(
      await leases.renew(
        [
          { sessionId: S1, fence: a1.fence },
          { sessionId: S2, fence: a2.fence },
        ],
        A,
      ),
    ).toEqual(['lost', 'extended']);
    expect((await leases.owner(S1))!.node).toBe('node-b');

    // Redis lost its data (a restart without persistence): the holder takes its lease back, and fences keep growing.
    await world.admin.flushall();
    expect(await leases.renew([{ sessionId: S2, fence: a2.fence }], A)).toEqual(['recreated']);
    expect(await leases.owner(S2)).toEqual({ ...A, fence: a2.fence });
    const next = await leases.claim(S1, B);
    expect(next.won && next.fence).toBeGreaterThan(a2.fence);
  });

  it('renew with extendOnly extends a lease carrying the fence but does not re-create one that is gone', async () => {
    const { fence } = (await leases.claim(S1, A)) as { fence: number };
    await leases.claim(S2, A);
    await world.admin.del(`turns:lease:${S2}`);
    expect(
      await leases.renew(
        [
          { sessionId: S1, fence, extendOnly: true },
          { sessionId: S2, fence: fence + 1, extendOnly: true },
        ],
        A,
      ),
    ).toEqual(['extended', 'lost']);
    expect(await world.admin.exists(`turns:lease:${S2}`)).toBe(0);
  });

  it('looks up the lease with the time Redis gives it left, and nothing once it is gone', async () => {
    const a = await leases.claim(S1, A);
    if (!a.won) throw new Error('claim should win');
    const found = (await leases.lookup(S1))!;
    expect(found.lease).toEqual({ ...A, fence: a.fence });
    expect(found.ttlMs).toBeGreaterThan(0);
    expect(found.ttlMs).toBeLessThanOrEqual(LEASE_MS);
    await world.admin.pexpire(`turns:lease:${S1}`, 250);
    expect((await leases.lookup(S1))!.ttlMs).toBeLessThanOrEqual(250);
    await world.admin.del(`turns:lease:${S1}`);
    expect(await leases.lookup(S1)).toBeUndefined();
  });

  it('release deletes only the lease carrying the fence', async () => {
    const a = await leases.claim(S1, A);
    if (!a.won) throw new Error('claim should win');
    await leases.release(S1, a.fence + 1);
    expect(await leases.owner(S1)).toBeDefined();
    await leases.release(S1, a.fence);
    expect(await leases.owner(S1)).toBeUndefined();
  });
});
