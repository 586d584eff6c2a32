import { Logger } from '@nestjs/common';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deferred } from '../../../test/support/deferred.js';
import { A, B, leaseSpecWorld, S1, S2 } from '../../../test/support/lease-spec.js';
import { HAS_REDIS } from '../../../test/support/redis-server.js';

/** Session ownership by leases against a real Redis the spec starts itself: claims, pauses, renewals (docs/cluster.md#inv-lease-2). */
(HAS_REDIS ? describe : describe.skip)('RedisSessionOwnership (real redis-server)', () => {
  const world = leaseSpecWorld({ directoryLeaseMs: 60_000, ownershipLeaseMs: 1_000 });

  it('an unreadable recorded fence (an empty file of the earlier layout) is not claimed around: 503 and an error naming it', async () => {
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    mkdirSync(join(world.dataDir, 'cluster', 'fences'), { recursive: true });
    writeFileSync(join(world.dataDir, 'cluster', 'fences', S1), '');
    await expect(world.ownershipOf(A).claim(S1)).rejects.toMatchObject({ code: 'cluster_unavailable' });
    expect(error).toHaveBeenCalledWith(
      expect.stringContaining(`session ${S1} cannot be claimed: its recorded fence cannot be read (unreadable fence`),
    );
    error.mockRestore();
  });

  it('a fresh lease is confirmed without asking Redis', async () => {
    const { ownership: a, nodes } = world.nodeOf(A);
    // The claim's announcement (a heartbeat 100 ms later) is no question about the lease: let it pass first.
    const announced = deferred<void>();
    const heartbeat = nodes.heartbeat.bind(nodes);
    const spy = jest.spyOn(nodes, 'heartbeat').mockImplementation(async (...args) => {
      await heartbeat(...args);
      announced.resolve();
    });
    await a.claim(S1);
    await announced.promise;
    spy.mockRestore();
    await world.admin.config('RESETSTAT');
    world.clock.time = 799;
    expect(a.confirm(S1)).toBe(true);
    const stats = await world.admin.info('commandstats');
    expect(stats).not.toMatch(/cmdstat_(evalsha|eval|hmget|hget)/);
  });

  it('a node paused past its lease asks before serving, and closes the session another node took', async () => {
    const a = world.ownershipOf(A);
    await a.claim(S1);
    // Paused: the lease expired in Redis and node-b claimed it.
    world.clock.time = 5_000;
    await world.admin.del(`turns:lease:${S1}`);
    const bDirectory = world.directoryOver(world.client(), 1_000);
    await bDirectory.ready(5_000);
    await world.ownershipOf(B, bDirectory).claim(S1);
    const confirmed = a.confirm(S1);
    expect(confirmed).toBeInstanceOf(Promise);
    expect(await confirmed).toBe(false);
    expect(world.lost).toEqual([S1]);
    expect(a.holds(S1)).toBe(false);
    // Asked again: not ours, no second loss; nothing more is written.
    expect(a.confirm(S1)).toBe(false);
    expect(await a.mayWrite(S1)).toBe(false);
    expect(world.lost).toEqual([S1]);
  });

  it('a stale lease nobody took is renewed and served again (also one that expired in Redis meanwhile: chaos SEED=2931 3-min schedule 3)', async () => {
    const a = world.ownershipOf(A);
    await a.claim(S1);
    world.clock.time = 5_000;
    await world.admin.del(`turns:lease:${S1}`);
    expect(await a.confirm(S1)).toBe(true);
    expect(a.confirm(S1)).toBe(true);
    expect(world.lost).toEqual([]);
  });

  it('a node paused past its lease that another node claimed and let go meanwhile re-creates it by renewal, and gives it up to the higher fence (chaos: fenced-node-silent)', async () => {
    const a = world.ownershipOf(A);
    await a.claim(S1);
    world.clock.time = 5_000;
    await world.admin.del(`turns:lease:${S1}`);
    const b = world.ownershipOf(B);
    await b.claim(S1);
    // node-b's load found nothing to serve and let go: no lease in Redis, fence 2 on the data dir.
    await b.release(S1);
    // Woken, its renewal tick comes first (a confirm would check the recorded fence anyway).
    await a.tick();
    expect(world.lost).toEqual([S1]);
    expect(a.confirm(S1)).toBe(false);
    // And the lease it re-created is released at once, not left to expire.
    expect(await world.admin.exists(`turns:lease:${S1}`)).toBe(0);
  });

  it('a claim for a session another node owns is 409 session_on_other_node; the directory down is 503 cluster_unavailable', async () => {
    const a = world.ownershipOf(A);
    const b = world.ownershipOf(B);
    await a.claim(S1);
    await expect(b.claim(S1)).rejects.toMatchObject({ code: 'session_on_other_node', details: { sessionId: S1, node: 'node-a' } });
    const down = world.client();
    const c = world.ownershipOf({ node: 'node-c', url: 'http://c' }, world.directoryOver(down, 1_000));
    down.disconnect();
    await expect(c.claim(S2)).rejects.toMatchObject({ code: 'cluster_unavailable', headers: { 'Retry-After': '1' } });
  });

  it('renews every lease in one call per tick, and reports a taken one once', async () => {
    const { ownership: a, leases, nodes } = world.nodeOf(A);
    await a.claim(S1);
    await a.claim(S2);
    await world.admin.del(`turns:lease:${S2}`);
    await world.ownershipOf(B).claim(S2);
    // Counted at the directory, not in Redis' command stats: the claims' own announcements (100 ms later, on a
    // timer) and a script's first load land there too, as the machine's load decides.
    const renew = jest.spyOn(leases, 'renew');
    const beat = jest.spyOn(nodes, 'heartbeat');
    await a.tick();
    // One heartbeat that lives longer, then one renewal of every lease.
    expect(renew.mock.calls.map(([leases]) => leases.map((lease) => lease.sessionId).sort())).toEqual([[S1, S2].sort()]);
    expect(beat.mock.calls.filter(([, refreshOnly]) => !refreshOnly)).toHaveLength(1);
    renew.mockRestore();
    beat.mockRestore();
    expect(world.lost).toEqual([S2]);
    expect([a.holds(S1), a.holds(S2)]).toEqual([true, false]);
    // Its heartbeat went before the renewal (2 sessions); the next one counts what is left.
    await a.tick();
    expect((await nodes.nodes()).find((n) => n.nodeId === 'node-a')?.sessions).toBe(1);
  });
});
