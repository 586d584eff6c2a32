import { deferred } from '../../../test/support/deferred.js';
import { handoverWorld, LEASE_MS, S1, TOKEN } from '../../../test/support/handover-spec.js';
import { specDirectory } from '../../../test/support/redis-ownership.js';
import { HAS_REDIS } from '../../../test/support/redis-server.js';
import { LeaseStore } from './lease-store.js';
import { SessionFences } from './session-fences.js';

/**
 * The lease handover (docs/cluster.md#inv-lease-5): Redis loses node-a's lease with node-a's connection up, node-b
 * claims the session, and asks node-a to let go before its claim resolves — and whom a claim asks at all.
 */
(HAS_REDIS ? describe : describe.skip)('lease handover: whom a claim asks (real redis-server)', () => {
  const w = handoverWorld();

  it('records the claiming node and its URL in the fence file', async () => {
    expect(await new SessionFences(w.dataDir).latest(S1)).toEqual({ fence: 1, holder: { node: 'node-a', url: w.peerUrl } });
  });

  it('a lease Redis lost while its owner heartbeats: the claimer asks the owner to let go before its claim resolves', async () => {
    await w.a.tick();
    await w.admin.del(`turns:lease:${S1}`);
    const b = await w.ownershipOf('node-b', 'http://127.0.0.1:2');
    await b.claim(S1);
    expect(w.asked).toEqual([{ url: `/cluster/sessions/${S1}/release`, authorization: `Bearer ${TOKEN}`, body: '{"fence":2}' }]);
    expect(w.lost).toEqual([`node-a ${S1}`]);
    expect([w.a.holds(S1), b.holds(S1)]).toEqual([false, true]);
  });

  it('a claim the runtime refuses (no room for the session) takes no lease and asks nobody to let go', async () => {
    await w.a.tick();
    await w.admin.del(`turns:lease:${S1}`);
    const b = await w.ownershipOf('node-b', 'http://127.0.0.1:2');
    const full = Object.assign(new Error('Too many live sessions'), { code: 'too_many_sessions' });
    b.guardClaims(() => full);
    await expect(b.claim(S1)).rejects.toBe(full);
    expect(w.asked).toEqual([]);
    expect(await w.admin.exists(`turns:lease:${S1}`)).toBe(0);
    expect([w.a.holds(S1), b.holds(S1)]).toEqual([true, false]);
  });

  it('asks nobody when the owner has no heartbeat (it died or was paused past its lease): nothing waits', async () => {
    await w.admin.del(`turns:lease:${S1}`);
    const b = await w.ownershipOf('node-b', 'http://127.0.0.1:2');
    await b.tick();
    // The w.clock stands still: w.a claim that waited would never resolve.
    await b.claim(S1);
    expect(w.asked).toEqual([]);
    expect(b.holds(S1)).toBe(true);
  });

  it('asks the owner whose heartbeat is gone when this node’s own is gone too: Redis lost keys since its last tick', async () => {
    await w.a.tick();
    const b = await w.ownershipOf('node-b', 'http://127.0.0.1:2');
    await b.tick();
    // A claim after the loss may already have taken the counter past this session's fence: only the heartbeats tell.
    await w.admin.del(`turns:lease:${S1}`, 'turns:node:node-a', 'turns:node:node-b');
    await b.claim(S1);
    expect(w.asked.map((request) => request.body)).toEqual(['{"fence":2}']);
    expect(w.lost).toEqual([`node-a ${S1}`]);
  });

  it('asks the owner after Redis lost its data (the counter was below the recorded fence), though no heartbeat is left', async () => {
    await w.admin.flushall();
    const b = await w.ownershipOf('node-b', 'http://127.0.0.1:2');
    await b.claim(S1);
    expect(w.asked.map((request) => request.body)).toEqual(['{"fence":2}']);
    expect(w.lost).toEqual([`node-a ${S1}`]);
  });

  it('asks the owner after a FLUSHALL though the claimer’s tick came first and other claims took the counter past its fence (chaos SEED=6151 schedule 5)', async () => {
    await w.a.tick();
    await w.admin.flushall();
    const b = await w.ownershipOf('node-b', 'http://127.0.0.1:2');
    await b.tick();
    const other = await specDirectory(w.redis.url, LEASE_MS, w.clock);
    for (const id of ['22222222-2222-4222-8222-222222222222', '33333333-3333-4333-8333-333333333333']) {
      await new LeaseStore(other).claim(id, { node: 'node-c', url: 'http://127.0.0.1:3' });
    }
    await other.close();
    // Counter past the recorded fence (1), the claimer's heartbeat there, node-a's not yet: only the marker tells.
    await b.claim(S1);
    expect(w.asked.map((request) => request.body)).toEqual(['{"fence":3}']);
    expect(w.lost).toEqual([`node-a ${S1}`]);
    expect([w.a.holds(S1), b.holds(S1)]).toEqual([false, true]);
  });

  it('the tick sends its heartbeat before the renewal, so the heartbeat never outlives the leases', async () => {
    const monitor = await w.admin.monitor();
    const commands: string[] = [];
    const marked = deferred<void>();
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args[0]?.toLowerCase() === 'echo' && args[1] === 'tick-done') marked.resolve();
      else commands.push(args.join(' ').toLowerCase());
    });
    try {
      await w.a.tick();
      await w.admin.echo('tick-done');
      await marked.promise;
      // Both are scripts, whose own commands MONITOR shows: the heartbeat's SET, the renewal's read of the lease.
      const beat = commands.findIndex((command) => command.startsWith('set turns:node:node-a'));
      const renewal = commands.findIndex((command) => command.startsWith('hmget turns:lease:'));
      expect(beat).toBeGreaterThanOrEqual(0);
      expect(renewal).toBeGreaterThan(beat);
    } finally {
      monitor.disconnect();
    }
  });

  it('a peer asked for a session it no longer holds, or holds under a higher fence, keeps what it has', async () => {
    expect(await w.a.yieldTo(S1, 1)).toBe(false);
    expect(w.a.holds(S1)).toBe(true);
    expect(await w.a.yieldTo('22222222-2222-4222-8222-222222222222', 5)).toBe(false);
  });

  it('a fence only named, not recorded on the data dir, lets nothing go (the route is no way to drop a lease)', async () => {
    expect(await w.a.yieldTo(S1, Number.MAX_SAFE_INTEGER)).toBe(false);
    expect(w.a.holds(S1)).toBe(true);
    expect(w.lost).toEqual([]);
  });
});
