import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deferred } from '../../test/support/deferred.js';
import { emptyKeptRedis } from '../../test/support/redis-ownership.js';
import { HAS_REDIS, startRedis, type RedisProcess } from '../../test/support/redis-server.js';
import type { ClusterNode } from './node/cluster-node.js';
import { clusterSettings } from './node/cluster.settings.js';
import { LeaseDirectory } from './lease-directory.js';
import { LeaseHandover } from './lease-handover.js';
import { RedisSessionOwnership } from './redis-session-ownership.js';
import { SessionFences } from './session-fences.js';

const S1 = '11111111-1111-4111-8111-111111111111';
const S2 = '22222222-2222-4222-8222-222222222222';
const A = { node: 'node-a', url: 'http://127.0.0.1:1' };
const B = { node: 'node-b', url: 'http://127.0.0.1:2' };
const LEASE_MS = 60_000;

/** Lease and fencing rules against a real Redis the spec starts itself. */
(HAS_REDIS ? describe : describe.skip)('cluster leases (real redis-server)', () => {
  let redis: RedisProcess;
  const clients: Redis[] = [];
  const client = () => {
    const c = new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: false });
    c.on('error', () => undefined);
    clients.push(c);
    return c;
  };
  let admin: Redis;
  let directory: LeaseDirectory;

  beforeAll(async () => {
    // Lease losses are logged as warnings; here they are the expected outcome.
    Logger.overrideLogger(false);
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const c of clients) if (c.status !== 'end') c.disconnect();
    admin.disconnect();
    await redis.kill();
  });
  beforeEach(async () => {
    admin ??= new Redis(redis.url);
    directory = new LeaseDirectory(client(), LEASE_MS);
    await directory.ready(5_000);
    await emptyKeptRedis(admin);
  });

  describe('LeaseDirectory', () => {
    it('the first claim wins; another node gets the holder; the holder may claim again with a larger fence', async () => {
      const first = await directory.claim(S1, A);
      expect(first).toEqual({ won: true, fence: 1, reset: false, emptied: false, previousAlive: false, selfAlive: false });
      expect(await directory.claim(S1, B)).toEqual({ won: false, owner: { ...A, fence: 1 } });
      expect(await directory.claim(S1, A)).toMatchObject({ won: true, fence: 2 });
      expect(await directory.owner(S1)).toEqual({ ...A, fence: 2 });
      expect(await admin.pttl(`turns:lease:${S1}`)).toBeGreaterThan(LEASE_MS - 5_000);
    });

    it('a claim after Redis lost its counter still gets a fence above the floor it is given, and the counter follows', async () => {
      expect(await directory.claim(S1, A, 41)).toMatchObject({ won: true, fence: 42, reset: true });
      expect(await directory.claim(S2, B)).toMatchObject({ won: true, fence: 43, reset: false });
      expect(await directory.claim(S2, B, 10)).toMatchObject({ won: true, fence: 44, reset: false });
    });

    it('a won claim says whether the previous owner and this node heartbeat, looked at in the same step', async () => {
      await directory.heartbeat({ nodeId: 'node-b', url: B.url, sessions: 1, startedAt: 1, heartbeatAt: 2 });
      expect(await directory.claim(S1, A, 0, 'node-b')).toMatchObject({ won: true, reset: false, previousAlive: true, selfAlive: false });
      expect(await directory.claim(S2, A, 0, 'node-c')).toMatchObject({ won: true, previousAlive: false });
      // Not asked about: not looked at.
      expect(await directory.claim(S2, A)).toMatchObject({ won: true, previousAlive: false });
      await directory.heartbeat({ nodeId: 'node-a', url: A.url, sessions: 1, startedAt: 1, heartbeatAt: 2 });
      expect(await directory.claim(S2, A)).toMatchObject({ won: true, selfAlive: true });
    });

    it('a claim within a lease of a data loss says so, though the counter is past the floor and both heartbeats are back (chaos SEED=6151 schedule 5)', async () => {
      await directory.claim(S2, B, 10);
      await admin.flushall();
      // The claimer's tick comes first and other claims raise the counter: neither heartbeat nor counter tells.
      await directory.heartbeat({ nodeId: 'node-a', url: A.url, sessions: 0, startedAt: 1, heartbeatAt: 2 });
      const started = await admin.pttl('turns:data-lost');
      expect(started).toBeGreaterThan(LEASE_MS - 5_000);
      await directory.heartbeat({ nodeId: 'node-b', url: B.url, sessions: 1, startedAt: 1, heartbeatAt: 2 });
      await directory.claim(S2, B, 10);
      expect(await directory.claim(S1, A, 1, 'node-b')).toMatchObject({
        won: true,
        reset: false,
        emptied: true,
        previousAlive: true,
        selfAlive: true,
      });
      // One lease from the first script that saw the loss (the heartbeat): later ones do not set it again.
      expect(await admin.pttl('turns:data-lost')).toBeLessThanOrEqual(started);
      await admin.del('turns:data-lost'); // the lease has passed
      expect(await directory.claim(S1, A, 1, 'node-b')).toMatchObject({ won: true, emptied: false });
    });

    it('a claim after Redis went back to older data (a restore from a snapshot, a replica promoted behind) says so, the sentinel there', async () => {
      const record = { nodeId: 'node-a', url: A.url, sessions: 0, startedAt: 1, heartbeatAt: 2 };
      await directory.heartbeat(record);
      const before = Number(await admin.get('turns:data'));
      await directory.heartbeat(record);
      // The snapshot was taken between the two heartbeats: the second one's count is lost.
      await admin.set('turns:data', String(before));
      expect(await directory.claim(S1, A)).toMatchObject({ won: true, emptied: true });
      // Another node that had seen nothing yet finds the marker standing.
      const other = new LeaseDirectory(client(), LEASE_MS);
      await other.ready(5_000);
      expect(await other.claim(S2, B)).toMatchObject({ won: true, emptied: true });
      await admin.del('turns:data-lost');
      // The count goes on from there: no loss seen again.
      expect(await directory.claim(S1, A)).toMatchObject({ won: true, emptied: false });
      expect(await other.claim(S2, B)).toMatchObject({ won: true, emptied: false });
    });

    it('no outbox is adopted within a lease of a data loss: live nodes may have no heartbeat until their next tick', async () => {
      await admin.flushall();
      expect(await directory.claimOutbox('node-x', 'node-a', 300)).toBe(false);
      expect(await directory.claimOutbox('node-x', 'node-a', 300)).toBe(false);
      await admin.del('turns:data-lost'); // the lease has passed
      expect(await directory.claimOutbox('node-x', 'node-a', 300)).toBe(true);
    });

    it('a refreshing heartbeat keeps the expiry of the one there, and writes nothing when none is', async () => {
      const record = { nodeId: 'node-a', url: A.url, sessions: 1, startedAt: 1, heartbeatAt: 2 };
      await directory.heartbeat(record, true);
      expect(await admin.exists('turns:node:node-a')).toBe(0);
      await directory.heartbeat(record);
      await admin.pexpire('turns:node:node-a', 5_000);
      await directory.heartbeat({ ...record, sessions: 2 }, true);
      expect(await admin.pttl('turns:node:node-a')).toBeLessThanOrEqual(5_000);
      expect((await directory.nodes())[0]?.sessions).toBe(2);
    });

    it('renewal extends a lease only while it carries this node and its fence (a fence another node drew after a reset is not ours)', async () => {
      await admin.hset(`turns:lease:${S1}`, 'node', B.node, 'url', B.url, 'fence', '1');
      expect(await directory.renew([{ sessionId: S1, fence: 1 }], A)).toEqual(['lost']);
      expect(await directory.owner(S1)).toEqual({ ...B, fence: 1 });
    });

    it('concurrent claims from two nodes make exactly one owner', async () => {
      const other = new LeaseDirectory(client(), LEASE_MS);
      await other.ready(5_000);
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? directory.claim(S1, A) : other.claim(S1, B))));
      const owner = (await directory.owner(S1))!;
      for (const result of results) {
        if (!result.won) expect(result.owner.node).toBe(owner.node);
      }
      // Every win went to the one node that owns it now.
      const wonBy = results.flatMap((r, i) => (r.won ? [i % 2 ? 'node-a' : 'node-b'] : []));
      expect(wonBy.length).toBeGreaterThan(0);
      expect(new Set(wonBy)).toEqual(new Set([owner.node]));
    });

    it('renew keeps its own leases, reports a taken one, and re-creates one that vanished without moving the counter back', async () => {
      const a1 = await directory.claim(S1, A);
      const a2 = await directory.claim(S2, A);
      if (!a1.won || !a2.won) throw new Error('claims should win');
      await admin.del(`turns:lease:${S1}`);
      const b1 = await directory.claim(S1, B);
      expect(b1.won).toBe(true);
      expect(
        await directory.renew(
          [
            { sessionId: S1, fence: a1.fence },
            { sessionId: S2, fence: a2.fence },
          ],
          A,
        ),
      ).toEqual(['lost', 'extended']);
      expect((await directory.owner(S1))!.node).toBe('node-b');

      // Redis lost its data (a restart without persistence): the holder takes its lease back, and fences keep growing.
      await admin.flushall();
      expect(await directory.renew([{ sessionId: S2, fence: a2.fence }], A)).toEqual(['recreated']);
      expect(await directory.owner(S2)).toEqual({ ...A, fence: a2.fence });
      const next = await directory.claim(S1, B);
      expect(next.won && next.fence).toBeGreaterThan(a2.fence);
    });

    it('renew with extendOnly extends a lease carrying the fence but does not re-create one that is gone', async () => {
      const { fence } = (await directory.claim(S1, A)) as { fence: number };
      await directory.claim(S2, A);
      await admin.del(`turns:lease:${S2}`);
      expect(
        await directory.renew(
          [
            { sessionId: S1, fence, extendOnly: true },
            { sessionId: S2, fence: fence + 1, extendOnly: true },
          ],
          A,
        ),
      ).toEqual(['extended', 'lost']);
      expect(await admin.exists(`turns:lease:${S2}`)).toBe(0);
    });

    it('looks up the lease with the time Redis gives it left, and nothing once it is gone', async () => {
      const a = await directory.claim(S1, A);
      if (!a.won) throw new Error('claim should win');
      const found = (await directory.lookup(S1))!;
      expect(found.lease).toEqual({ ...A, fence: a.fence });
      expect(found.ttlMs).toBeGreaterThan(0);
      expect(found.ttlMs).toBeLessThanOrEqual(LEASE_MS);
      await admin.pexpire(`turns:lease:${S1}`, 250);
      expect((await directory.lookup(S1))!.ttlMs).toBeLessThanOrEqual(250);
      await admin.del(`turns:lease:${S1}`);
      expect(await directory.lookup(S1)).toBeUndefined();
    });

    it('release deletes only the lease carrying the fence', async () => {
      const a = await directory.claim(S1, A);
      if (!a.won) throw new Error('claim should win');
      await directory.release(S1, a.fence + 1);
      expect(await directory.owner(S1)).toBeDefined();
      await directory.release(S1, a.fence);
      expect(await directory.owner(S1)).toBeUndefined();
    });

    it('lets one node at a time claim a dead node’s webhook outbox, until the claim expires', async () => {
      expect(await directory.claimOutbox('node-x', 'node-a', 200)).toBe(true);
      expect(await directory.claimOutbox('node-x', 'node-b', 200)).toBe(false);
      expect(await directory.claimOutbox('node-y', 'node-b', 200)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(await directory.claimOutbox('node-x', 'node-b', 200)).toBe(true);
    });

    it('lists nodes that heartbeat', async () => {
      await directory.heartbeat({ nodeId: 'node-b', url: B.url, sessions: 2, startedAt: 1, heartbeatAt: 2 });
      await directory.heartbeat({ nodeId: 'node-a', url: A.url, sessions: 0, startedAt: 1, heartbeatAt: 2 });
      expect((await directory.nodes()).map((n) => [n.nodeId, n.sessions])).toEqual([
        ['node-a', 0],
        ['node-b', 2],
      ]);
      await directory.forgetNode('node-a');
      expect((await directory.nodes()).map((n) => n.nodeId)).toEqual(['node-b']);
    });
  });

  describe('RedisSessionOwnership', () => {
    let now: number;
    let lost: string[];
    let created: RedisSessionOwnership[];
    // The nodes' shared data dir, where each claim records its fence.
    let dataDir: string;
    const ownershipOf = (self: typeof A, dir = directory) => {
      const node = { id: self.node, url: self.url, listening: true, startedAt: 0 } as ClusterNode;
      const settings = clusterSettings({ redisUrl: redis.url, nodeId: self.node, leaseMs: 1_000, dataDir });
      const ownership = new RedisSessionOwnership(dir, node, settings, new SessionFences(dataDir), new LeaseHandover(dir, settings));
      ownership.monotonic = () => now;
      ownership.onLoss((sessionId) => lost.push(sessionId));
      created.push(ownership);
      return ownership;
    };
    beforeEach(() => {
      now = 0;
      lost = [];
      created = [];
      dataDir = mkdtempSync(join(tmpdir(), 'fences-'));
    });
    // Shut each down as the app would (no announcement left pending after the test).
    afterEach(async () => {
      for (const ownership of created) {
        await ownership.onApplicationShutdown();
        for (const sessionId of [S1, S2]) await ownership.release(sessionId);
      }
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('an unreadable recorded fence (an empty file of the earlier layout) is not claimed around: 503 and an error naming it', async () => {
      const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      mkdirSync(join(dataDir, 'cluster', 'fences'), { recursive: true });
      writeFileSync(join(dataDir, 'cluster', 'fences', S1), '');
      await expect(ownershipOf(A).claim(S1)).rejects.toMatchObject({ code: 'cluster_unavailable' });
      expect(error).toHaveBeenCalledWith(
        expect.stringContaining(`session ${S1} cannot be claimed: its recorded fence cannot be read (unreadable fence`),
      );
      error.mockRestore();
    });

    it('a fresh lease is confirmed without asking Redis', async () => {
      const a = ownershipOf(A);
      // The claim's announcement (a heartbeat 100 ms later) is no question about the lease: let it pass first.
      const announced = deferred<void>();
      const heartbeat = directory.heartbeat.bind(directory);
      const spy = jest.spyOn(directory, 'heartbeat').mockImplementation(async (...args) => {
        await heartbeat(...args);
        announced.resolve();
      });
      await a.claim(S1);
      await announced.promise;
      spy.mockRestore();
      await admin.config('RESETSTAT');
      now = 799;
      expect(a.confirm(S1)).toBe(true);
      const stats = await admin.info('commandstats');
      expect(stats).not.toMatch(/cmdstat_(evalsha|eval|hmget|hget)/);
    });

    it('a node paused past its lease asks before serving, and closes the session another node took', async () => {
      const a = ownershipOf(A);
      await a.claim(S1);
      // Paused: the lease expired in Redis and node-b claimed it.
      now = 5_000;
      await admin.del(`turns:lease:${S1}`);
      const bDirectory = new LeaseDirectory(client(), 1_000);
      await bDirectory.ready(5_000);
      await ownershipOf(B, bDirectory).claim(S1);
      const confirmed = a.confirm(S1);
      expect(confirmed).toBeInstanceOf(Promise);
      expect(await confirmed).toBe(false);
      expect(lost).toEqual([S1]);
      expect(a.holds(S1)).toBe(false);
      // Asked again: not ours, no second loss; nothing more is written.
      expect(a.confirm(S1)).toBe(false);
      expect(await a.mayWrite(S1)).toBe(false);
      expect(lost).toEqual([S1]);
    });

    it('a stale lease nobody took is renewed and served again (also one that expired in Redis meanwhile: chaos SEED=2931 3-min schedule 3)', async () => {
      const a = ownershipOf(A);
      await a.claim(S1);
      now = 5_000;
      await admin.del(`turns:lease:${S1}`);
      expect(await a.confirm(S1)).toBe(true);
      expect(a.confirm(S1)).toBe(true);
      expect(lost).toEqual([]);
    });

    it('a node paused past its lease that another node claimed and let go meanwhile re-creates it by renewal, and gives it up to the higher fence (chaos: fenced-node-silent)', async () => {
      const a = ownershipOf(A);
      await a.claim(S1);
      now = 5_000;
      await admin.del(`turns:lease:${S1}`);
      const b = ownershipOf(B);
      await b.claim(S1);
      // node-b's load found nothing to serve and let go: no lease in Redis, fence 2 on the data dir.
      await b.release(S1);
      // Woken, its renewal tick comes first (a confirm would check the recorded fence anyway).
      await a.tick();
      expect(lost).toEqual([S1]);
      expect(a.confirm(S1)).toBe(false);
      // And the lease it re-created is released at once, not left to expire.
      expect(await admin.exists(`turns:lease:${S1}`)).toBe(0);
    });

    it('a claim for a session another node owns is 409 session_on_other_node; the directory down is 503 cluster_unavailable', async () => {
      const a = ownershipOf(A);
      const b = ownershipOf(B);
      await a.claim(S1);
      await expect(b.claim(S1)).rejects.toMatchObject({ code: 'session_on_other_node', details: { sessionId: S1, node: 'node-a' } });
      const down = client();
      const c = ownershipOf({ node: 'node-c', url: 'http://c' }, new LeaseDirectory(down, 1_000));
      down.disconnect();
      await expect(c.claim(S2)).rejects.toMatchObject({ code: 'cluster_unavailable', headers: { 'Retry-After': '1' } });
    });

    it('with the directory unreachable since the lease was fresh, the stale lease keeps serving (nobody can claim it meanwhile)', async () => {
      const own = client();
      const dir = new LeaseDirectory(own, 1_000);
      await dir.ready(5_000);
      const a = ownershipOf(A, dir);
      await a.claim(S1);
      own.disconnect();
      now = 300; // the renewal a third of a lease later fails: the outage began while the lease was fresh
      await a.tick();
      now = 5_000;
      expect(await a.confirm(S1)).toBe(true);
      expect(lost).toEqual([]);
    });

    it('a node paused past its lease that wakes to an unreachable directory does not serve it (chaos SEED=2931, schedule 4)', async () => {
      // Paused (SIGSTOP): node-b loaded the session meanwhile, then Redis went down; on waking node-a cannot ask.
      const own = client();
      const dir = new LeaseDirectory(own, 1_000);
      await dir.ready(5_000);
      const a = ownershipOf(A, dir);
      await a.claim(S1);
      own.disconnect();
      now = 5_000;
      expect(await a.confirm(S1)).toBe(false);
      await a.tick();
      expect(await a.confirm(S1)).toBe(false);
      // Not given up either: it may still be ours once Redis answers again, so what it already ran is persisted
      // (chaos SEED=2931 60-s schedule 2: a turn it settled while paused was otherwise reconciled as daemon_lost).
      expect(a.holds(S1)).toBe(true);
      expect(await a.mayWrite(S1)).toBe(true);
      expect(lost).toEqual([]);
    });

    it('once Redis answers again (empty: it lost the claim another node made meanwhile), that stale lease is given up, not re-created', async () => {
      let down = true;
      const own = client();
      const dir = new LeaseDirectory(own, 1_000);
      await dir.ready(5_000);
      const renew = dir.renew.bind(dir);
      dir.renew = (leases, self) => (down ? Promise.reject(new Error('unreachable')) : renew(leases, self));
      const a = ownershipOf(A, dir);
      await a.claim(S1);
      now = 5_000;
      expect(await a.confirm(S1)).toBe(false);
      await admin.flushall();
      down = false;
      expect(await a.confirm(S1)).toBe(false);
      expect(lost).toEqual([S1]);
      expect(await admin.exists(`turns:lease:${S1}`)).toBe(0);
    });

    describe('Redis restarted empty while the owner had not heard of it (chaos SEED=2931, 3-min schedules 6 and 8)', () => {
      /** node-a owns S1 over `own`; Redis then loses its data and node-b claims S1 in the empty Redis. */
      const takeOverAfterReset = async (own: Redis) => {
        const dir = new LeaseDirectory(own, 1_000);
        await dir.ready(5_000);
        const a = ownershipOf(A, dir);
        await a.claim(S1);
        await admin.flushall();
        const b = ownershipOf(B);
        await b.claim(S1);
        return { a, b };
      };

      it('the new claim outranks the old owner: its fence is above the one recorded on the data dir', async () => {
        const own = client();
        await takeOverAfterReset(own);
        expect((await directory.owner(S1))?.fence).toBe(2);
        expect(await new SessionFences(dataDir).highest(S1)).toBe(2);
      });

      it('an owner whose connection is down finds itself fenced before it serves or writes, though its lease is fresh', async () => {
        const own = client();
        const { a } = await takeOverAfterReset(own);
        const closed = new Promise((resolve) => own.once('end', resolve));
        own.disconnect();
        await closed;
        now = 100;
        const confirmed = a.confirm(S1);
        expect(confirmed).toBeInstanceOf(Promise);
        expect(await confirmed).toBe(false);
        expect(await a.mayWrite(S1)).toBe(false);
        expect(lost).toEqual([S1]);
      });

      it('an owner reconnected to the emptied Redis asks again before serving, and gives the session up', async () => {
        const own = client();
        const { a } = await takeOverAfterReset(own);
        const reconnected = new Promise((resolve) => own.once('ready', resolve));
        own.disconnect(true);
        await reconnected;
        now = 100;
        expect(await a.confirm(S1)).toBe(false);
        expect(lost).toEqual([S1]);
        expect(await directory.owner(S1)).toMatchObject({ node: B.node, fence: 2 });
      });

      it('a lease the renewal re-creates over a new connection is given up when a higher fence was recorded meanwhile', async () => {
        const own = client();
        const { a, b } = await takeOverAfterReset(own);
        // node-b closed the session again: no lease in Redis, so node-a's renewal re-creates its own.
        await b.release(S1);
        const reconnected = new Promise((resolve) => own.once('ready', resolve));
        own.disconnect(true);
        await reconnected;
        now = 100;
        await a.tick();
        expect(a.holds(S1)).toBe(false);
        expect(lost).toEqual([S1]);
        // And released at once, not left to expire.
        expect(await admin.exists(`turns:lease:${S1}`)).toBe(0);
      });

      it('a lease the renewal re-creates over the same connection (FLUSHALL, connections up) is given up when a higher fence was recorded', async () => {
        const own = client();
        const { a, b } = await takeOverAfterReset(own);
        // node-b's claim is lost with Redis's data again; node-a's connection never dropped (chaos SEED=7717 schedule 1).
        await admin.flushall();
        now = 100;
        await a.tick();
        expect(a.holds(S1)).toBe(false);
        expect(lost).toEqual([S1]);
        expect(await admin.exists(`turns:lease:${S1}`)).toBe(0);
        expect(b.holds(S1)).toBe(true);
      });

      it('a paused owner waking to an unreachable Redis writes nothing once another node recorded a higher fence', async () => {
        const own = client();
        const dir = new LeaseDirectory(own, 1_000);
        await dir.ready(5_000);
        const a = ownershipOf(A, dir);
        await a.claim(S1);
        // Paused past the lease: node-b claimed S1, then Redis went down before node-a woke.
        await admin.del(`turns:lease:${S1}`);
        await ownershipOf(B).claim(S1);
        own.disconnect();
        now = 5_000;
        expect(await a.mayWrite(S1)).toBe(false);
        expect(a.holds(S1)).toBe(false);
        expect(lost).toEqual([S1]);
      });
    });

    it('takes nothing for unowned within a lease of its connection to Redis (issue 36: one restarted empty has no live lease or heartbeat yet)', async () => {
      const a = ownershipOf(A);
      // A whole number: (t + 1000) - t is not always 1000 in floating point, and the bound is exact.
      directory.connectedAt = Math.floor(directory.connectedAt);
      now = directory.connectedAt + 1_000;
      expect(a.mayClaimUnowned()).toBe(false);
      now += 1;
      expect(a.mayClaimUnowned()).toBe(true);
    });

    it('sees a session unowned only at the second of two lookups a lease apart that found no lease, over one connection', async () => {
      const b = ownershipOf(B);
      expect(await b.seenUnowned(S1)).toBe(false); // first sighting
      now += 999;
      expect(await b.seenUnowned(S1)).toBe(false); // not a lease yet
      now += 1;
      expect(await b.seenUnowned(S1)).toBe(true);
      // A lease between two lookups (its owner renewed) starts over.
      expect(await b.seenUnowned(S2)).toBe(false);
      await ownershipOf(A).claim(S2);
      now += 1_000;
      expect(await b.seenUnowned(S2)).toBe(false);
      await admin.del(`turns:lease:${S2}`);
      expect(await b.seenUnowned(S2)).toBe(false);
      now += 1_000;
      expect(await b.seenUnowned(S2)).toBe(true);
    });

    it("stamps a connection on the ownership's clock, so a reconnect is taken for a lease old only by that clock", async () => {
      const own = client();
      const reconnecting = new LeaseDirectory(own, LEASE_MS);
      await reconnecting.ready(5_000);
      const a = ownershipOf(A, reconnecting);
      now = 1_000_000;
      const reconnected = new Promise((resolve) => own.once('ready', resolve));
      own.disconnect(true);
      await reconnected;
      expect(reconnecting.connectedAt).toBe(1_000_000);
      now += 1_000;
      expect(a.mayClaimUnowned()).toBe(false);
      now += 1;
      expect(a.mayClaimUnowned()).toBe(true);
    });

    it('renews every lease in one call per tick, and reports a taken one once', async () => {
      const a = ownershipOf(A);
      await a.claim(S1);
      await a.claim(S2);
      await admin.del(`turns:lease:${S2}`);
      await ownershipOf(B).claim(S2);
      // Counted at the directory, not in Redis' command stats: the claims' own announcements (100 ms later, on a
      // timer) and a script's first load land there too, as the machine's load decides.
      const renew = jest.spyOn(directory, 'renew');
      const beat = jest.spyOn(directory, 'heartbeat');
      await a.tick();
      // One heartbeat that lives longer, then one renewal of every lease.
      expect(renew.mock.calls.map(([leases]) => leases.map((lease) => lease.sessionId).sort())).toEqual([[S1, S2].sort()]);
      expect(beat.mock.calls.filter(([, refreshOnly]) => !refreshOnly)).toHaveLength(1);
      renew.mockRestore();
      beat.mockRestore();
      expect(lost).toEqual([S2]);
      expect([a.holds(S1), a.holds(S2)]).toEqual([true, false]);
      // Its heartbeat went before the renewal (2 sessions); the next one counts what is left.
      await a.tick();
      expect((await directory.nodes()).find((n) => n.nodeId === 'node-a')?.sessions).toBe(1);
    });
  });
});
