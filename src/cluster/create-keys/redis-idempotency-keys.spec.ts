import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { eventuallyTouched, withTimersHeld } from '../../../test/support/held-timers.js';
import { HAS_REDIS, startRedis, type RedisProcess } from '../../../test/support/redis-server.js';
import { clusterSettings } from '../node/cluster.settings.js';
import { CreateKeyRecords } from './create-key-records.js';
import { RedisIdempotencyKeys } from './redis-idempotency-keys.js';

const ANSWER = { status: 200, body: { sessionId: 's', clientId: 'c' } };
const STORED = `turns:idempotency:${createHash('sha256').update('k').digest('hex')}`;

/** Create keys shared by a cluster's nodes (issue 36), against a real Redis the spec starts itself. */
(HAS_REDIS ? describe : describe.skip)('RedisIdempotencyKeys (real redis-server)', () => {
  let redis: RedisProcess;
  let clients: Redis[];
  let dataDir: string;
  let now: number;
  /** A node's view: its own connection, as each daemon has; with the shared data dir unless `withoutDataDir`. */
  const node = (withoutDataDir = false) => {
    const client = new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    client.on('error', () => undefined);
    clients.push(client);
    const settings = clusterSettings({ redisUrl: redis.url, nodeId: 'n', leaseMs: 1_000 });
    const records = withoutDataDir ? undefined : new CreateKeyRecords(dataDir, () => now);
    return new RedisIdempotencyKeys(client, settings, records, () => now);
  };
  const flushall = () => clients[0]!.flushall();
  const ready = () => Promise.all(clients.map((c) => (c.status === 'ready' ? undefined : new Promise((r) => c.once('ready', r)))));

  beforeAll(async () => {
    redis = await startRedis();
  });
  beforeEach(() => {
    clients = [];
    dataDir = mkdtempSync(join(tmpdir(), 'turns-redis-keys-'));
    now = Date.now();
  });
  afterEach(async () => {
    const admin = new Redis(redis.url);
    await admin.flushall();
    admin.disconnect();
    for (const client of clients) client.disconnect();
    rmSync(dataDir, { recursive: true, force: true });
  });
  afterAll(async () => {
    await redis.kill();
  });

  it('one first request across nodes: the others get 409 while it runs, its answer after, 422 for another body', async () => {
    const [a, b] = [node(), node()];
    await ready();
    await expect(a.begin('k', 'f1')).resolves.toBeUndefined();
    await expect(b.begin('k', 'f1')).rejects.toMatchObject({ code: 'idempotency_key_in_flight' });
    await expect(b.begin('k', 'f2')).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    await a.complete('k', 'f1', ANSWER, 60_000);
    await expect(b.begin('k', 'f1')).resolves.toEqual(ANSWER);
    await expect(b.begin('k', 'f2')).rejects.toMatchObject({ code: 'idempotency_key_reused' });
  });

  it('a failed first request frees its key; an answered one is not freed by a late abandon', async () => {
    const [a, b] = [node(), node()];
    await ready();
    await a.begin('k', 'f1');
    await a.abandon('k', 'f1');
    await expect(b.begin('k', 'f1')).resolves.toBeUndefined();
    await b.complete('k', 'f1', ANSWER, 60_000);
    await a.abandon('k', 'f1');
    await expect(a.begin('k', 'f1')).resolves.toEqual(ANSWER);
  });

  it('marks a key in flight for a lease only (a node that dies while it creates frees it then), and keeps an answer for the TTL', async () => {
    const a = node();
    await ready();
    await a.begin('k', 'f1');
    const inFlight = await clients[0]!.pttl(STORED);
    expect(inFlight).toBeGreaterThan(0);
    expect(inFlight).toBeLessThanOrEqual(1_000);
    await a.complete('k', 'f1', ANSWER, 60_000);
    expect(await clients[0]!.pttl(STORED)).toBeGreaterThan(1_000);
  });

  it('holds the in-flight mark while the create runs: extended every third of a lease, so a create slower than a lease keeps its key', async () => {
    await withTimersHeld(async () => {
      const [a, b] = [node(), node()];
      await ready();
      await a.begin('k', 'f1');
      // Most of a lease has passed (Redis's clock is real): the mark has 50 ms left.
      await clients[0]!.pexpire(STORED, 50);
      jest.advanceTimersByTime(1_000 / 3);
      await clients[0]!.ping(); // the hold, sent on the same connection, has been answered
      expect(await clients[0]!.pttl(STORED)).toBeGreaterThan(500);
      await expect(b.begin('k', 'f1')).rejects.toMatchObject({ code: 'idempotency_key_in_flight' });
      await a.complete('k', 'f1', ANSWER, 60_000);
      expect(jest.getTimerCount()).toBe(0);
    });
  });

  it('without a data dir, completes only while the key is still its own mark: a record another node made after the mark was lost is kept', async () => {
    const [a, b] = [node(true), node(true)];
    await ready();
    await a.begin('k', 'f1');
    await clients[0]!.del(STORED); // Redis lost the mark (expired, evicted, flushed)
    await b.begin('k', 'f1');
    const before = await clients[0]!.get(STORED);
    // Done is done: the create answers its own; only its replay is not shared.
    await expect(a.complete('k', 'f1', ANSWER, 60_000)).resolves.toEqual(ANSWER);
    expect(await clients[0]!.get(STORED)).toBe(before);
    await expect(a.begin('k', 'f1')).rejects.toMatchObject({ code: 'idempotency_key_in_flight' });
    await b.complete('k', 'f1', { ...ANSWER, body: { sessionId: 's2', clientId: 'c2' } }, 60_000);
    await expect(a.begin('k', 'f1')).resolves.toEqual({ ...ANSWER, body: { sessionId: 's2', clientId: 'c2' } });
  });

  it('an answer is recorded on the data dir, synced, before it is given: after FLUSHALL another node replays it, and Redis has it again', async () => {
    const [a, b] = [node(), node()];
    await ready();
    await a.begin('k', 'f1');
    await expect(a.complete('k', 'f1', ANSWER, 60_000)).resolves.toEqual(ANSWER);
    expect(readdirSync(join(dataDir, 'cluster', 'idempotency'))).toEqual([STORED.split(':').at(-1)]);
    await flushall();
    await expect(b.begin('k', 'f1')).resolves.toEqual(ANSWER);
    const seeded = JSON.parse((await clients[0]!.get(STORED))!) as unknown;
    expect(seeded).toEqual({ fingerprint: 'f1', answer: ANSWER });
    const ttl = await clients[0]!.pttl(STORED);
    expect(ttl).toBeGreaterThan(1_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('after FLUSHALL another body under the key is still 422', async () => {
    const [a, b] = [node(), node()];
    await ready();
    await a.begin('k', 'f1');
    await a.complete('k', 'f1', ANSWER, 60_000);
    await flushall();
    await expect(b.begin('k', 'f2')).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    await expect(b.begin('k', 'f1')).resolves.toEqual(ANSWER);
  });

  it('a record the data dir refuses is 503 cluster_unavailable, never silence, and frees the key', async () => {
    const [a, b] = [node(), node()];
    await ready();
    await a.begin('k', 'f1');
    // A real refusal: the records' directory is a file now.
    const dir = join(dataDir, 'cluster', 'idempotency');
    renameSync(dir, `${dir}-away`);
    writeFileSync(dir, 'not a directory');
    await expect(a.complete('k', 'f1', ANSWER, 60_000)).rejects.toMatchObject({ code: 'cluster_unavailable' });
    expect(await clients[0]!.exists(STORED)).toBe(0);
    // Nor can the key be looked up while the data dir refuses it: an error, not "none".
    await expect(b.begin('k', 'f1')).rejects.toMatchObject({ code: 'cluster_unavailable' });
    expect(await clients[0]!.exists(STORED)).toBe(0);
    rmSync(dir);
    await expect(b.begin('k', 'f1')).resolves.toBeUndefined();
    await b.abandon('k', 'f1');
  });

  it('a record expires with the TTL: after it, the key starts anew even when Redis lost it', async () => {
    const [a, b] = [node(), node()];
    await ready();
    await a.begin('k', 'f1');
    await a.complete('k', 'f1', ANSWER, 60_000);
    await flushall();
    now += 60_000;
    await expect(b.begin('k', 'f2')).resolves.toBeUndefined();
    const second = { ...ANSWER, body: { sessionId: 's2', clientId: 'c2' } };
    await expect(b.complete('k', 'f2', second, 60_000)).resolves.toEqual(second);
    await flushall();
    await expect(a.begin('k', 'f2')).resolves.toEqual(second);
  });

  it('Redis lost the mark while the first create runs: its mark on the data dir still answers 409 (422 for another body), then its answer', async () => {
    const [a, b] = [node(), node()];
    await ready();
    await a.begin('k', 'f1');
    await flushall();
    await expect(b.begin('k', 'f1')).rejects.toMatchObject({ code: 'idempotency_key_in_flight' });
    await expect(b.begin('k', 'f2')).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    expect(await clients[0]!.exists(STORED)).toBe(0); // b's own Redis mark was freed
    await expect(a.complete('k', 'f1', ANSWER, 60_000)).resolves.toEqual(ANSWER);
    await expect(b.begin('k', 'f1')).resolves.toEqual(ANSWER);
    expect(readdirSync(join(dataDir, 'cluster', 'idempotency'))).toEqual([STORED.split(':').at(-1)]);
  });

  it('a failed create frees its mark on the data dir too', async () => {
    const [a, b] = [node(), node()];
    await ready();
    await a.begin('k', 'f1');
    await a.abandon('k', 'f1');
    await flushall();
    await expect(b.begin('k', 'f1')).resolves.toBeUndefined();
    await b.abandon('k', 'f1');
  });

  it('a mark its node stopped touching is taken over two leases later; the first answer recorded is the one both give', async () => {
    await withTimersHeld(async () => {
      const [a, b] = [node(), node()];
      await ready();
      await a.begin('k', 'f1');
      await flushall();
      // A is paused (its timers do not run): its mark ages.
      now += 2_000;
      await expect(b.begin('k', 'f1')).rejects.toMatchObject({ code: 'idempotency_key_in_flight' });
      now += 1;
      await expect(b.begin('k', 'f1')).resolves.toBeUndefined();
      const second = { ...ANSWER, body: { sessionId: 's2', clientId: 'c2' } };
      await expect(b.complete('k', 'f1', second, 60_000)).resolves.toEqual(second);
      // A wakes and completes: its answer is not recorded over B's, and it gives B's.
      await expect(a.complete('k', 'f1', ANSWER, 60_000)).resolves.toEqual(second);
      await flushall();
      await expect(a.begin('k', 'f1')).resolves.toEqual(second);
    });
  });

  it('a running create touches its mark on the data dir, so it is not taken over however long it runs', async () => {
    await withTimersHeld(async () => {
      const [a, b] = [node(), node()];
      await ready();
      await a.begin('k', 'f1');
      await flushall();
      now += 2_001;
      jest.advanceTimersByTime(1_000 / 3);
      const mark = join(dataDir, 'cluster', 'idempotency', `${STORED.split(':').at(-1)}.mark`);
      await eventuallyTouched(mark, now);
      await expect(b.begin('k', 'f1')).rejects.toMatchObject({ code: 'idempotency_key_in_flight' });
      await a.complete('k', 'f1', ANSWER, 60_000);
    });
  });

  it('503 cluster_unavailable when Redis cannot be asked', async () => {
    const a = node();
    await ready();
    clients[0]!.disconnect();
    await expect(a.begin('k', 'f1')).rejects.toMatchObject({ code: 'cluster_unavailable' });
  });
});
