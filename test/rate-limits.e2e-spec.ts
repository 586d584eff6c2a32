import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { TurnsClient } from '../src/client/turns-client.js';
import { CLUSTER_REDIS } from '../src/cluster/node/cluster.settings.js';
import { runCli } from '../src/daemon/cli.js';
import type { DaemonConfig } from '../src/daemon/daemon-config.js';
import { TurnWaitService } from '../src/turns/wait/turn-wait.service.js';
import { eventually } from './support/eventually.js';
import { HAS_REDIS, startRedis, type RedisProcess } from './support/redis-server.js';
import { ADAPTERS, startDaemon, tempDir, type Adapter, type TestDaemon } from './support/test-daemon.js';

/** Long enough that no budget refills during a case: every count below is exact. */
const WINDOW_MS = 600_000;
const limits = (extra: Partial<DaemonConfig> = {}): Partial<DaemonConfig> => ({
  rateLimit: true,
  rateLimitPrompt: 2,
  rateLimitMutation: 3,
  rateLimitRead: 4,
  rateLimitWindowMs: WINDOW_MS,
  ...extra,
});

/** A fetch on `daemon` with the client id (when given). */
function call(daemon: TestDaemon, path: string, init: RequestInit & { clientId?: string } = {}) {
  const { clientId, ...rest } = init;
  const headers: Record<string, string> = { ...(rest.headers as Record<string, string>) };
  if (clientId) headers['x-qwen-client-id'] = clientId;
  if (typeof rest.body === 'string') headers['content-type'] = 'application/json';
  return fetch(`${daemon.url}${path}`, { ...rest, headers });
}

/** Sends `count` requests one after the other; their statuses. */
async function statuses(count: number, send: (i: number) => Promise<Response>): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await send(i);
    await res.arrayBuffer();
    seen.push(res.status);
  }
  return seen;
}

/** The 429's body and rate-limit headers, checked against the peer's shape. */
async function expectRefused(res: Response, tier: string, limit: number, before: number): Promise<void> {
  const body = (await res.json()) as { retryAfterMs: number };
  expect(res.status).toBe(429);
  expect(body).toEqual({ error: 'Rate limit exceeded', code: 'rate_limit_exceeded', tier, retryAfterMs: expect.any(Number) });
  expect(body.retryAfterMs).toBeGreaterThan(0);
  expect(body.retryAfterMs).toBeLessThanOrEqual(WINDOW_MS);
  expect(res.headers.get('retry-after')).toBe(String(Math.ceil(body.retryAfterMs / 1000)));
  expect(res.headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
  // Epoch seconds when the budget has room: between the request's send and now, plus retryAfterMs.
  const reset = Number(res.headers.get('x-ratelimit-reset'));
  expect(reset).toBeGreaterThanOrEqual(Math.ceil((before + body.retryAfterMs) / 1000));
  expect(reset).toBeLessThanOrEqual(Math.ceil((Date.now() + body.retryAfterMs) / 1000));
}

describe.each(ADAPTERS)('rate limits (%s)', (httpAdapter: Adapter) => {
  let daemon: TestDaemon | undefined;
  afterEach(() => daemon?.close(true));
  const start = async (extra?: Partial<DaemonConfig>) => (daemon = await startDaemon({ httpAdapter, ...limits(extra) }));

  it('advertises rate_limit only when on', async () => {
    const on = await start();
    expect((await on.http.get('/capabilities').expect(200)).body.features).toContain('rate_limit');
    await on.close(true);
    daemon = await startDaemon({ httpAdapter });
    expect((await daemon.http.get('/capabilities').expect(200)).body.features).not.toContain('rate_limit');
  });

  it('read: 429 past the budget, with the body and headers of the peer; allowed answers carry none', async () => {
    const d = await start();
    const { sessionId, clientId } = await d.createSession();
    const path = `/session/${sessionId}/turns/current`;
    const allowed = await call(d, path, { clientId });
    expect(allowed.status).toBe(200);
    expect([...allowed.headers.keys()].filter((name) => name.startsWith('x-ratelimit'))).toEqual([]);
    expect(await statuses(3, () => call(d, path, { clientId, method: 'HEAD' }))).toEqual([200, 200, 200]);
    const before = Date.now();
    await expectRefused(await call(d, path, { clientId }), 'read', 4, before);
  });

  it('prompt: the third admission of a client is refused; its reads are another budget', async () => {
    const d = await start();
    const { sessionId, clientId } = await d.createSession();
    const body = JSON.stringify({ prompt: [{ type: 'text', text: 'hi' }] });
    expect(await statuses(2, () => call(d, `/session/${sessionId}/prompt`, { clientId, method: 'POST', body }))).toEqual([202, 202]);
    const before = Date.now();
    await expectRefused(await call(d, `/session/${sessionId}/prompt`, { clientId, method: 'POST', body }), 'prompt', 2, before);
    // Refused before admission: the session has the two prompts only.
    const pending = await call(d, `/session/${sessionId}/pending-prompts`, { clientId });
    expect(((await pending.json()) as { pendingPrompts: unknown[] }).pendingPrompts).toHaveLength(2);
  });

  it('mutation: any other write draws on it', async () => {
    const d = await start();
    const { sessionId, clientId } = await d.createSession();
    const cancel = () => call(d, `/session/${sessionId}/cancel`, { clientId, method: 'POST' });
    expect(await statuses(3, cancel)).toEqual([204, 204, 204]);
    const before = Date.now();
    await expectRefused(await cancel(), 'mutation', 3, before);
  });

  it('never limits OPTIONS, /health, heartbeats and the event stream', async () => {
    const d = await start({ rateLimitRead: 1, rateLimitMutation: 2 });
    const { sessionId, clientId } = await d.createSession(); // the anonymous mutation budget: 1 of 2 left
    expect(await statuses(5, () => call(d, '/health'))).toEqual([200, 200, 200, 200, 200]);
    expect(await statuses(5, () => call(d, '/health', { method: 'HEAD' }))).toEqual([200, 200, 200, 200, 200]);
    expect(await statuses(5, () => call(d, `/session/${sessionId}/prompt`, { method: 'OPTIONS' }))).toEqual([204, 204, 204, 204, 204]);
    const heartbeat = () => call(d, `/session/${sessionId}/heartbeat`, { clientId, method: 'POST' });
    expect(await statuses(5, heartbeat)).toEqual([200, 200, 200, 200, 200]);
    for (let i = 0; i < 3; i++) {
      const stop = new AbortController();
      const stream = await call(d, `/session/${sessionId}/events`, { clientId, signal: stop.signal });
      expect(stream.status).toBe(200);
      stop.abort();
    }
    // None of them drew on a budget: the one read and the one write left are still there.
    expect(await statuses(2, () => call(d, `/session/${sessionId}/turns/current`, { clientId }))).toEqual([200, 429]);
    expect(await statuses(2, () => call(d, '/session', { method: 'POST', body: '{}' }))).toEqual([200, 429]);
  });

  it('minted client ids escape nothing: fresh well-formed ids share the anonymous budget', async () => {
    const d = await start({ rateLimitRead: 12 });
    const { sessionId, clientId } = await d.createSession();
    const minted = () => `client_${randomUUID()}`;
    // On a session route a minted id is not registered (400), and still counted: the 13th is refused.
    const session = await statuses(14, () => call(d, `/session/${sessionId}/turns/current`, { clientId: minted() }));
    expect(session).toEqual([...Array<number>(12).fill(400), 429, 429]);
    // Off a session route, the same budget (the principal's anonymous one) is spent already.
    expect((await call(d, '/capabilities', { clientId: minted() })).status).toBe(429);
    // The id the daemon issued has a budget of its own.
    expect((await call(d, `/session/${sessionId}/turns/current`, { clientId })).status).toBe(200);
  });

  it('a held poll counts once', async () => {
    const d = await start({ rateLimitRead: 3 });
    const { sessionId, clientId } = await d.createSession();
    const promptId = await d.prompt(sessionId, 'held', clientId);
    const turn = await d.engine.nextTurn();
    const held = call(d, `/session/${sessionId}/turns/${promptId}?waitMs=20000`, { clientId });
    // Held until the turn settles: a wake-up answers it, it is not sent again.
    await eventually(() => (d.app.get(TurnWaitService).waiting === 1 ? true : undefined));
    turn.say('done');
    turn.finish();
    const answer = await held;
    expect([answer.status, ((await answer.json()) as { state: string }).state]).toEqual([200, 'completed']);
    expect(await statuses(3, () => call(d, `/session/${sessionId}/turns/${promptId}`, { clientId }))).toEqual([200, 200, 429]);
  });

  it('TurnsClient waits out a 429 for its Retry-After, and says so', async () => {
    const d = await start({ rateLimitRead: 2, rateLimitWindowMs: 1_000 });
    const { sessionId, clientId } = await d.createSession();
    const waits: Array<{ tier?: string; retryAfterMs: number }> = [];
    const client = new TurnsClient({ baseUrl: d.url, clientId, onRateLimited: (wait) => waits.push(wait) });
    for (let i = 0; i < 3; i++) expect((await client.getCurrent(sessionId)).state).toBe('idle');
    expect(waits).toEqual([{ method: 'GET', path: `/session/${sessionId}/turns/current`, tier: 'read', retryAfterMs: expect.any(Number) }]);
    expect(waits[0]!.retryAfterMs).toBeLessThanOrEqual(1_000);
  });

  it('the command line waits out a 429 too, and its line says so', async () => {
    const d = await start({ rateLimitRead: 2, rateLimitWindowMs: 1_000 });
    const { sessionId, clientId } = await d.createSession();
    const runs: Array<{ code: number; stdout: string; stderr: string }> = [];
    for (let i = 0; i < 3; i++) {
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      const out: string[] = [];
      const err: string[] = [];
      stdout.on('data', (chunk: Buffer) => out.push(chunk.toString()));
      stderr.on('data', (chunk: Buffer) => err.push(chunk.toString()));
      const code = await runCli(['status', sessionId, '--url', d.url, '--client-id', clientId], { stdout, stderr, env: {} });
      runs.push({ code, stdout: out.join(''), stderr: err.join('') });
    }
    expect(runs.map((run) => [run.code, run.stdout])).toEqual([
      [0, 'idle\n'],
      [0, 'idle\n'],
      [0, 'idle\n'],
    ]);
    expect(runs[2]!.stderr).toMatch(
      new RegExp(`^rate limited \\(read budget\\): waiting \\d\\.\\ds before GET /session/${sessionId}/turns/current again\\n$`),
    );
  });
});

(HAS_REDIS ? describe : describe.skip)('rate limits in cluster mode (redis-server + 2 nodes)', () => {
  let redis: RedisProcess;
  let a: TestDaemon, b: TestDaemon;
  beforeAll(async () => {
    redis = await startRedis();
    const dataDir = tempDir();
    const node = (nodeId: string, httpAdapter: Adapter) =>
      startDaemon({ httpAdapter, dataDir, workspaces: [dataDir], redisUrl: redis.url, nodeId, leaseMs: 60_000, ...limits() });
    a = await node('node-a', 'express');
    b = await node('node-b', 'fastify');
  });
  afterAll(async () => {
    await b?.close();
    await a?.close(true);
    await redis?.kill();
  });

  it('spreading requests over the nodes gives no more than one node allows', async () => {
    const seen = await statuses(6, (i) => call(i % 2 === 0 ? a : b, '/capabilities'));
    expect(seen).toEqual([200, 200, 200, 200, 429, 429]);
  });

  it('a request forwarded to its owner counts once, there', async () => {
    const { sessionId, clientId } = await a.createSession();
    const path = `/session/${sessionId}/turns/current`;
    // Two through node b (forwarded to a), two on a: four of four.
    const nodes: Array<string | null> = [];
    const seen = await statuses(5, async (i) => {
      const res = await call(i < 2 || i === 4 ? b : a, path, { clientId });
      nodes.push(res.headers.get('x-turns-node'));
      return res;
    });
    expect(seen).toEqual([200, 200, 200, 200, 429]);
    expect(nodes).toEqual(Array(5).fill('node-a')); // each answered by the owner
  });

  it('while Redis is down, each node limits in its own memory: never open', async () => {
    await redis.kill();
    for (const node of [a, b]) {
      const client = node.app.get<{ status: string }>(CLUSTER_REDIS);
      await eventually(() => (client.status !== 'ready' ? true : undefined));
    }
    expect(await statuses(5, () => call(a, '/capabilities'))).toEqual([200, 200, 200, 200, 429]);
    expect(await statuses(5, () => call(b, '/capabilities'))).toEqual([200, 200, 200, 200, 429]);
    // Back on the same port, so the nodes reconnect and close cleanly.
    redis = await startRedis(redis.port);
    for (const node of [a, b]) {
      const client = node.app.get<{ status: string }>(CLUSTER_REDIS);
      await eventually(() => (client.status === 'ready' ? true : undefined));
    }
  });
});
