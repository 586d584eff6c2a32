import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { HAS_REDIS, startRedis, type RedisProcess } from '../../test/support/redis-server.js';
import { clusterSettings } from './cluster-options.js';
import { RedisIdempotencyKeys } from './redis-idempotency-keys.js';

const ANSWER = { status: 200, body: { sessionId: 's', clientId: 'c' } };
const STORED = `turns:idempotency:${createHash('sha256').update('k').digest('hex')}`;

/** Create keys shared by a cluster's nodes (issue 36), against a real Redis the spec starts itself. */
(HAS_REDIS ? describe : describe.skip)('RedisIdempotencyKeys (real redis-server)', () => {
  let redis: RedisProcess;
  let clients: Redis[];
  /** A node's view: its own connection, as each daemon has. */
  const node = () => {
    const client = new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    client.on('error', () => undefined);
    clients.push(client);
    return new RedisIdempotencyKeys(client, clusterSettings({ redisUrl: redis.url, nodeId: 'n', leaseMs: 1_000 }));
  };
  const ready = () => Promise.all(clients.map((c) => (c.status === 'ready' ? undefined : new Promise((r) => c.once('ready', r)))));

  beforeAll(async () => {
    redis = await startRedis();
  });
  beforeEach(() => {
    clients = [];
  });
  afterEach(async () => {
    const admin = new Redis(redis.url);
    await admin.flushall();
    admin.disconnect();
    for (const client of clients) client.disconnect();
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
    const stored = STORED;
    await a.begin('k', 'f1');
    const inFlight = await clients[0]!.pttl(stored);
    expect(inFlight).toBeGreaterThan(0);
    expect(inFlight).toBeLessThanOrEqual(1_000);
    await a.complete('k', 'f1', ANSWER, 60_000);
    expect(await clients[0]!.pttl(stored)).toBeGreaterThan(1_000);
  });

  it('holds the in-flight mark while the create runs: extended every third of a lease, so a create slower than a lease keeps its key', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'performance', 'hrtime', 'Date'] });
    try {
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
    } finally {
      jest.useRealTimers();
    }
  });

  it('completes only while the key is still its own mark: a record another node made after the mark was lost is kept', async () => {
    const [a, b] = [node(), node()];
    await ready();
    await a.begin('k', 'f1');
    await clients[0]!.del(STORED); // Redis lost the mark (expired, evicted, flushed)
    await b.begin('k', 'f1');
    const before = await clients[0]!.get(STORED);
    await expect(a.complete('k', 'f1', ANSWER, 60_000)).rejects.toMatchObject({ name: 'IdempotencyMarkLost' });
    expect(await clients[0]!.get(STORED)).toBe(before);
    await expect(a.begin('k', 'f1')).rejects.toMatchObject({ code: 'idempotency_key_in_flight' });
    await b.complete('k', 'f1', { ...ANSWER, body: { sessionId: 's2', clientId: 'c2' } }, 60_000);
    await expect(a.begin('k', 'f1')).resolves.toEqual({ ...ANSWER, body: { sessionId: 's2', clientId: 'c2' } });
  });

  it('503 cluster_unavailable when Redis cannot be asked', async () => {
    const a = node();
    await ready();
    clients[0]!.disconnect();
    await expect(a.begin('k', 'f1')).rejects.toMatchObject({ code: 'cluster_unavailable' });
  });
});
