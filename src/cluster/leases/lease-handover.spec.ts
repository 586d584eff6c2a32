import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deferred, settle } from '../../../test/support/deferred.js';
import { HAS_REDIS, startRedis, type RedisProcess } from '../../../test/support/redis-server.js';
import { ManualClock } from '../../../test/support/manual-clock.js';
import { emptyKeptRedis, ownershipOver, specDirectory, specNode } from '../../../test/support/redis-ownership.js';
import { peerOrigin } from './lease-handover.js';
import { LeaseStore } from './lease-store.js';
import type { RedisSessionOwnership } from './redis-session-ownership.js';
import { SessionFences } from './session-fences.js';

const S1 = '11111111-1111-4111-8111-111111111111';
const LEASE_MS = 1_000;
const TOKEN = 'peer-secret';

/**
 * The lease handover (docs/cluster.md, *Lease handover*): Redis loses node-a's lease
 * with node-a's connection up, node-b claims the session, and asks node-a to
 * let go before its claim resolves. node-a's peer route is a real HTTP server
 * answering as the cluster controller does.
 */
(HAS_REDIS ? describe : describe.skip)('lease handover (real redis-server)', () => {
  let redis: RedisProcess;
  let admin: Redis;
  let dataDir: string;
  let clock: ManualClock;
  let lost: string[];
  const created: Array<{ ownership: RedisSessionOwnership; client: Redis }> = [];
  /** node-a's peer route: what it was asked, and how it answers (`hang`: never). */
  let asked: Array<{ url?: string; authorization?: string; body: string }>;
  let hang: boolean;
  /** The name node-a's peer route answers with (`X-Turns-Node`). */
  let answeredAs: string;
  let peer: Server;
  let peerUrl: string;
  let a: RedisSessionOwnership;

  const ownershipOf = async (node: string, url: string) => {
    const directory = await specDirectory(redis.url, LEASE_MS, clock);
    const { ownership } = ownershipOver(directory, { node: specNode(node, url), redisUrl: redis.url, dataDir, clock, peerToken: TOKEN });
    ownership.onLoss((sessionId) => lost.push(`${node} ${sessionId}`));
    created.push({ ownership, client: directory.redis });
    return ownership;
  };

  /** `b`'s claim of S1 waits its lease out: unresolved while the clock stands before its reply + a lease, held after. */
  const expectWaitedOut = async (b: RedisSessionOwnership) => {
    clock.time = 100;
    let resolved = false;
    const claimed = b.claim(S1).then(() => (resolved = true));
    await new Promise((resolve) => setTimeout(resolve, 150));
    await settle();
    expect(resolved).toBe(false);
    clock.time = 1_100;
    await claimed;
    expect(b.holds(S1)).toBe(true);
  };

  beforeAll(async () => {
    Logger.overrideLogger(false);
    redis = await startRedis();
    admin = new Redis(redis.url);
    peer = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        asked.push({ url: req.url, authorization: req.headers.authorization, body });
        if (hang) return;
        void a
          .yieldTo(req.url!.split('/')[3]!, (JSON.parse(body) as { fence: number }).fence)
          .then((released) =>
            res.writeHead(200, { 'content-type': 'application/json', 'x-turns-node': answeredAs }).end(JSON.stringify({ released })),
          );
      });
    });
    await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
    peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    peer.closeAllConnections();
    await new Promise((resolve) => peer.close(resolve));
    admin.disconnect();
    await redis.kill();
  });
  beforeEach(async () => {
    await emptyKeptRedis(admin);
    dataDir = mkdtempSync(join(tmpdir(), 'handover-'));
    clock = new ManualClock(0);
    lost = [];
    asked = [];
    hang = false;
    answeredAs = 'node-a';
    a = await ownershipOf('node-a', peerUrl);
    await a.claim(S1);
  });
  afterEach(async () => {
    for (const { ownership, client } of created.splice(0)) {
      await ownership.onApplicationShutdown();
      await ownership.release(S1);
      client.disconnect();
    }
    peer.closeAllConnections();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('records the claiming node and its URL in the fence file', async () => {
    expect(await new SessionFences(dataDir).latest(S1)).toEqual({ fence: 1, holder: { node: 'node-a', url: peerUrl } });
  });

  it('a lease Redis lost while its owner heartbeats: the claimer asks the owner to let go before its claim resolves', async () => {
    await a.tick();
    await admin.del(`turns:lease:${S1}`);
    const b = await ownershipOf('node-b', 'http://127.0.0.1:2');
    await b.claim(S1);
    expect(asked).toEqual([{ url: `/cluster/sessions/${S1}/release`, authorization: `Bearer ${TOKEN}`, body: '{"fence":2}' }]);
    expect(lost).toEqual([`node-a ${S1}`]);
    expect([a.holds(S1), b.holds(S1)]).toEqual([false, true]);
  });

  it('a claim the runtime refuses (no room for the session) takes no lease and asks nobody to let go', async () => {
    await a.tick();
    await admin.del(`turns:lease:${S1}`);
    const b = await ownershipOf('node-b', 'http://127.0.0.1:2');
    const full = Object.assign(new Error('Too many live sessions'), { code: 'too_many_sessions' });
    b.guardClaims(() => full);
    await expect(b.claim(S1)).rejects.toBe(full);
    expect(asked).toEqual([]);
    expect(await admin.exists(`turns:lease:${S1}`)).toBe(0);
    expect([a.holds(S1), b.holds(S1)]).toEqual([true, false]);
  });

  it('asks nobody when the owner has no heartbeat (it died or was paused past its lease): nothing waits', async () => {
    await admin.del(`turns:lease:${S1}`);
    const b = await ownershipOf('node-b', 'http://127.0.0.1:2');
    await b.tick();
    // The clock stands still: a claim that waited would never resolve.
    await b.claim(S1);
    expect(asked).toEqual([]);
    expect(b.holds(S1)).toBe(true);
  });

  it('asks the owner whose heartbeat is gone when this node’s own is gone too: Redis lost keys since its last tick', async () => {
    await a.tick();
    const b = await ownershipOf('node-b', 'http://127.0.0.1:2');
    await b.tick();
    // A claim after the loss may already have taken the counter past this session's fence: only the heartbeats tell.
    await admin.del(`turns:lease:${S1}`, 'turns:node:node-a', 'turns:node:node-b');
    await b.claim(S1);
    expect(asked.map((request) => request.body)).toEqual(['{"fence":2}']);
    expect(lost).toEqual([`node-a ${S1}`]);
  });

  it('asks the owner after Redis lost its data (the counter was below the recorded fence), though no heartbeat is left', async () => {
    await admin.flushall();
    const b = await ownershipOf('node-b', 'http://127.0.0.1:2');
    await b.claim(S1);
    expect(asked.map((request) => request.body)).toEqual(['{"fence":2}']);
    expect(lost).toEqual([`node-a ${S1}`]);
  });

  it('asks the owner after a FLUSHALL though the claimer’s tick came first and other claims took the counter past its fence (chaos SEED=6151 schedule 5)', async () => {
    await a.tick();
    await admin.flushall();
    const b = await ownershipOf('node-b', 'http://127.0.0.1:2');
    await b.tick();
    const other = await specDirectory(redis.url, LEASE_MS, clock);
    for (const id of ['22222222-2222-4222-8222-222222222222', '33333333-3333-4333-8333-333333333333']) {
      await new LeaseStore(other).claim(id, { node: 'node-c', url: 'http://127.0.0.1:3' });
    }
    await other.close();
    // Counter past the recorded fence (1), the claimer's heartbeat there, node-a's not yet: only the marker tells.
    await b.claim(S1);
    expect(asked.map((request) => request.body)).toEqual(['{"fence":3}']);
    expect(lost).toEqual([`node-a ${S1}`]);
    expect([a.holds(S1), b.holds(S1)]).toEqual([false, true]);
  });

  it('a previous owner nothing listens for (connection refused) and no heartbeat names is not waited for', async () => {
    const gone = await ownershipOf('node-c', 'http://127.0.0.1:1');
    await a.release(S1);
    await gone.claim(S1);
    // Redis lost its data: asked for that, but nothing listens at node-c's address and no heartbeat says it lives.
    await admin.flushall();
    const b = await ownershipOf('node-b', 'http://127.0.0.1:2');
    await b.claim(S1);
    expect(b.holds(S1)).toBe(true);
  });

  it('a refused connection to a previous owner whose heartbeat is there is waited out (its address, not it, is gone)', async () => {
    const moved = await ownershipOf('node-c', 'http://127.0.0.1:1');
    await a.release(S1);
    await moved.claim(S1);
    await moved.tick();
    await admin.del(`turns:lease:${S1}`);
    const b = await ownershipOf('node-b', 'http://127.0.0.1:2');
    await expectWaitedOut(b);
  });

  it('an answer from another node at the previous owner’s address does not count: the claim waits its lease out', async () => {
    answeredAs = 'node-x';
    await a.tick();
    await admin.del(`turns:lease:${S1}`);
    const b = await ownershipOf('node-b', 'http://127.0.0.1:2');
    await expectWaitedOut(b);
    expect(asked).toHaveLength(1);
  });

  it('asks nothing of an address that is not a bare http(s) origin (the fence file is on a shared disk)', () => {
    expect(peerOrigin('http://10.0.0.5:4170')).toBe('http://10.0.0.5:4170');
    expect(peerOrigin('https://node-a.internal/')).toBe('https://node-a.internal');
    for (const url of [
      'http://169.254.169.254/latest?x=',
      'http://u:p@10.0.0.5',
      'file:///etc/passwd',
      'http://a/b',
      'not a url',
      'http://a/#x',
    ])
      expect(peerOrigin(url)).toBeUndefined();
  });

  it('a previous owner that does not answer is waited out: the claim resolves a lease after Redis answered it, not before', async () => {
    hang = true;
    await a.tick();
    await admin.del(`turns:lease:${S1}`);
    const warned = deferred<void>();
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
      if (String(message).includes('did not answer')) warned.resolve();
    });
    try {
      const b = await ownershipOf('node-b', 'http://127.0.0.1:2');
      clock.time = 100;
      let resolved = false;
      const claimed = b.claim(S1).then(() => (resolved = true));
      await warned.promise;
      expect(asked).toHaveLength(1);
      // Held (and renewed) but not served while it waits.
      clock.time = 1_099;
      await new Promise((resolve) => setTimeout(resolve, 120));
      await settle();
      expect([resolved, b.holds(S1)]).toEqual([false, false]);
      clock.time = 1_100;
      await claimed;
      expect(b.holds(S1)).toBe(true);
    } finally {
      warn.mockRestore();
    }
  });

  it('the tick sends its heartbeat before the renewal, so the heartbeat never outlives the leases', async () => {
    const monitor = await admin.monitor();
    const commands: string[] = [];
    const marked = deferred<void>();
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args[0]?.toLowerCase() === 'echo' && args[1] === 'tick-done') marked.resolve();
      else commands.push(args.join(' ').toLowerCase());
    });
    try {
      await a.tick();
      await admin.echo('tick-done');
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
    expect(await a.yieldTo(S1, 1)).toBe(false);
    expect(a.holds(S1)).toBe(true);
    expect(await a.yieldTo('22222222-2222-4222-8222-222222222222', 5)).toBe(false);
  });

  it('a fence only named, not recorded on the data dir, lets nothing go (the route is no way to drop a lease)', async () => {
    expect(await a.yieldTo(S1, Number.MAX_SAFE_INTEGER)).toBe(false);
    expect(a.holds(S1)).toBe(true);
    expect(lost).toEqual([]);
  });
});
