import type { Redis } from 'ioredis';
import { A, B, leaseSpecWorld, S1 } from '../../../test/support/lease-spec.js';
import { HAS_REDIS } from '../../../test/support/redis-server.js';
import { LeaseStore } from './lease-store.js';
import { SessionFences } from './session-fences.js';

/** Session ownership while Redis is unreachable or lost its data, against a real Redis the spec starts (docs/cluster.md#inv-lease-4). */
(HAS_REDIS ? describe : describe.skip)('RedisSessionOwnership through Redis outages (real redis-server)', () => {
  const world = leaseSpecWorld({ directoryLeaseMs: 60_000, ownershipLeaseMs: 1_000 });

  it('with the directory unreachable since the lease was fresh, the stale lease keeps serving (nobody can claim it meanwhile)', async () => {
    const own = world.client();
    const dir = world.directoryOver(own, 1_000);
    await dir.ready(5_000);
    const a = world.ownershipOf(A, dir);
    await a.claim(S1);
    own.disconnect();
    world.clock.time = 300; // the renewal a third of a lease later fails: the outage began while the lease was fresh
    await a.tick();
    world.clock.time = 5_000;
    expect(await a.confirm(S1)).toBe(true);
    expect(world.lost).toEqual([]);
  });

  it('a node paused past its lease that wakes to an unreachable directory does not serve it (chaos SEED=2931, schedule 4)', async () => {
    // Paused (SIGSTOP): node-b loaded the session meanwhile, then Redis went down; on waking node-a cannot ask.
    const own = world.client();
    const dir = world.directoryOver(own, 1_000);
    await dir.ready(5_000);
    const a = world.ownershipOf(A, dir);
    await a.claim(S1);
    own.disconnect();
    world.clock.time = 5_000;
    expect(await a.confirm(S1)).toBe(false);
    await a.tick();
    expect(await a.confirm(S1)).toBe(false);
    // Not given up either: it may still be ours once Redis answers again, so what it already ran is persisted
    // (chaos SEED=2931 60-s schedule 2: a turn it settled while paused was otherwise reconciled as daemon_lost).
    expect(a.holds(S1)).toBe(true);
    expect(await a.mayWrite(S1)).toBe(true);
    expect(world.lost).toEqual([]);
  });

  it('once Redis answers again (empty: it lost the claim another node made meanwhile), that stale lease is given up, not re-created', async () => {
    let down = true;
    const own = world.client();
    const dir = world.directoryOver(own, 1_000);
    await dir.ready(5_000);
    const { ownership: a, leases } = world.nodeOf(A, dir);
    const renew = leases.renew.bind(leases);
    leases.renew = (sent, self) => (down ? Promise.reject(new Error('unreachable')) : renew(sent, self));
    await a.claim(S1);
    world.clock.time = 5_000;
    expect(await a.confirm(S1)).toBe(false);
    await world.admin.flushall();
    down = false;
    expect(await a.confirm(S1)).toBe(false);
    expect(world.lost).toEqual([S1]);
    expect(await world.admin.exists(`turns:lease:${S1}`)).toBe(0);
  });

  describe('Redis restarted empty while the owner had not heard of it (chaos SEED=2931, 3-min schedules 6 and 8)', () => {
    /** node-a owns S1 over `own`; Redis then loses its data and node-b claims S1 in the empty Redis. */
    const takeOverAfterReset = async (own: Redis) => {
      const dir = world.directoryOver(own, 1_000);
      await dir.ready(5_000);
      const a = world.ownershipOf(A, dir);
      await a.claim(S1);
      await world.admin.flushall();
      const b = world.ownershipOf(B);
      await b.claim(S1);
      return { a, b };
    };

    it('the new claim outranks the old owner: its fence is above the one recorded on the data dir', async () => {
      const own = world.client();
      await takeOverAfterReset(own);
      expect((await new LeaseStore(world.directory).owner(S1))?.fence).toBe(2);
      expect(await new SessionFences(world.dataDir).highest(S1)).toBe(2);
    });

    it('an owner whose connection is down finds itself fenced before it serves or writes, though its lease is fresh', async () => {
      const own = world.client();
      const { a } = await takeOverAfterReset(own);
      const closed = new Promise((resolve) => own.once('end', resolve));
      own.disconnect();
      await closed;
      world.clock.time = 100;
      const confirmed = a.confirm(S1);
      expect(confirmed).toBeInstanceOf(Promise);
      expect(await confirmed).toBe(false);
      expect(await a.mayWrite(S1)).toBe(false);
      expect(world.lost).toEqual([S1]);
    });

    it('an owner reconnected to the emptied Redis asks again before serving, and gives the session up', async () => {
      const own = world.client();
      const { a } = await takeOverAfterReset(own);
      const reconnected = new Promise((resolve) => own.once('ready', resolve));
      own.disconnect(true);
      await reconnected;
      world.clock.time = 100;
      expect(await a.confirm(S1)).toBe(false);
      expect(world.lost).toEqual([S1]);
      expect(await new LeaseStore(world.directory).owner(S1)).toMatchObject({ node: B.node, fence: 2 });
    });

    it('a lease the renewal re-creates over a new connection is given up when a higher fence was recorded meanwhile', async () => {
      const own = world.client();
      const { a, b } = await takeOverAfterReset(own);
      // node-b closed the session again: no lease in Redis, so node-a's renewal re-creates its own.
      await b.release(S1);
      const reconnected = new Promise((resolve) => own.once('ready', resolve));
      own.disconnect(true);
      await reconnected;
      world.clock.time = 100;
      await a.tick();
      expect(a.holds(S1)).toBe(false);
      expect(world.lost).toEqual([S1]);
      // And released at once, not left to expire.
      expect(await world.admin.exists(`turns:lease:${S1}`)).toBe(0);
    });

    it('a lease the renewal re-creates over the same connection (FLUSHALL, connections up) is given up when a higher fence was recorded', async () => {
      const own = world.client();
      const { a, b } = await takeOverAfterReset(own);
      // node-b's claim is lost with Redis's data again; node-a's connection never dropped (chaos SEED=7717 schedule 1).
      await world.admin.flushall();
      world.clock.time = 100;
      await a.tick();
      expect(a.holds(S1)).toBe(false);
      expect(world.lost).toEqual([S1]);
      expect(await world.admin.exists(`turns:lease:${S1}`)).toBe(0);
      expect(b.holds(S1)).toBe(true);
    });

    it('a paused owner waking to an unreachable Redis writes nothing once another node recorded a higher fence', async () => {
      const own = world.client();
      const dir = world.directoryOver(own, 1_000);
      await dir.ready(5_000);
      const a = world.ownershipOf(A, dir);
      await a.claim(S1);
      // Paused past the lease: node-b claimed S1, then Redis went down before node-a woke.
      await world.admin.del(`turns:lease:${S1}`);
      await world.ownershipOf(B).claim(S1);
      own.disconnect();
      world.clock.time = 5_000;
      expect(await a.mayWrite(S1)).toBe(false);
      expect(a.holds(S1)).toBe(false);
      expect(world.lost).toEqual([S1]);
    });
  });
});
