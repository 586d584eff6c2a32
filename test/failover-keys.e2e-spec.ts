import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { LeaseDirectory } from '../src/cluster/leases/lease-directory.js';
import { MonotonicClock } from '../src/cluster/leases/monotonic-clock.js';
import { deliveryIdOf } from '../src/webhooks/webhook-delivery.js';
import { WebhookOutboxAdoption } from '../src/webhooks/webhook-outbox-adoption.js';
import { compileSources } from './support/compiled.js';
import { eventually } from './support/eventually.js';
import { startDaemonProcess, type DaemonProcess } from './support/daemon-process.js';
import { HAS_REDIS, startRedis, type RedisProcess } from './support/redis-server.js';
import { startDaemon, type TestDaemon } from './support/test-daemon.js';
import { pendingDeliveries, WebhookReceiver, type ReceivedWebhook } from './support/webhook-receiver.js';

const LEASE_MS = 1_000;
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const json = { 'content-type': 'application/json' };
const body = (text: string) => JSON.stringify({ prompt: [{ type: 'text', text }] });

/** The next webhook, or a failure after `ms` (the old code never sends one). */
const nextWithin = (receiver: WebhookReceiver, ms: number): Promise<ReceivedWebhook> =>
  Promise.race([
    receiver.next(),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no webhook within ${ms} ms`)), ms).unref()),
  ]);

/**
 * Issue 36, scenarios 3–5, against compiled daemons as operators run them, a
 * real redis-server and one shared data dir; nodes die by SIGKILL.
 */
(HAS_REDIS ? describe : describe.skip)('keys and lost prompts that survive a failover (redis-server + daemons)', () => {
  jest.setTimeout(90_000);
  let dist: string;
  let dataDir: string;
  let redis: RedisProcess;
  let nodes: DaemonProcess[];
  let receiver: WebhookReceiver | undefined;
  let inProcess: TestDaemon | undefined;

  const start = async (id: string | undefined, env: NodeJS.ProcessEnv = {}) => {
    const node = await startDaemonProcess(join(dist, 'daemon', 'bin.js'), {
      TURNS_DATA_DIR: dataDir,
      TURNS_WORKSPACES: dataDir,
      // A prompt runs for ten minutes: the next one waits in the queue.
      TURNS_ECHO_DELAY_MS: '600000',
      ...(id && { TURNS_REDIS_URL: redis.url, TURNS_NODE_ID: id, TURNS_LEASE_MS: String(LEASE_MS) }),
      ...env,
    });
    nodes.push(node);
    return node;
  };
  const kill = async (node: DaemonProcess) => {
    node.child.kill('SIGKILL');
    await node.exited;
  };
  const post = (url: string, payload: string, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { ...json, ...headers }, body: payload });
  const operator = () => ({ TURNS_WEBHOOK_URL: receiver!.url, TURNS_WEBHOOK_SECRET: SECRET, TURNS_WEBHOOK_ALLOW: '127.0.0.1' });

  /** A session on `node` with a running prompt and a queued one; the queued one's admission answer. */
  const runningAndQueued = async (node: DaemonProcess, key?: string) => {
    const { sessionId } = (await (await post(`${node.url}/session`, '{}')).json()) as { sessionId: string };
    const running = (await (await post(`${node.url}/session/${sessionId}/prompt`, body('runs'))).json()) as { promptId: string };
    const res = await post(`${node.url}/session/${sessionId}/prompt`, body('waits'), key ? { 'Idempotency-Key': key } : {});
    expect(res.status).toBe(202);
    const queued = (await res.json()) as { promptId: string; lastEventId: number; eventEpoch: string };
    return { sessionId, running: running.promptId, queued };
  };

  beforeAll(async () => {
    dist = compileSources('failover-keys');
    redis = await startRedis();
  });
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'turns-failover-keys-'));
    nodes = [];
  });
  afterEach(async () => {
    for (const node of nodes) await kill(node);
    await inProcess?.close();
    inProcess = undefined;
    await receiver?.close();
    receiver = undefined;
    const admin = new Redis(redis.url);
    await admin.flushall();
    await admin.quit();
    rmSync(dataDir, { recursive: true, force: true });
  });
  afterAll(async () => {
    await redis?.kill();
  });

  it('3: a queued prompt’s key replays its answer on the node that took over, and admits nothing new', async () => {
    const [a, b] = [await start('node-a'), await start('node-b')];
    const { sessionId, queued } = await runningAndQueued(a, 'job-7');
    await kill(a);

    await eventually(async () => ((await post(`${b.url}/session/${sessionId}/load`, '{}')).status === 200 ? true : undefined), 20_000);
    const retry = await post(`${b.url}/session/${sessionId}/prompt`, body('waits'), { 'Idempotency-Key': 'job-7' });
    expect(retry.status).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toEqual(queued);
    // The prompt it names was lost with its node, and says so; nothing else was admitted.
    const turn = (await (await fetch(`${b.url}/session/${sessionId}/turns/${queued.promptId}`)).json()) as Record<string, unknown>;
    expect(turn).toMatchObject({ state: 'error', error: { code: 'daemon_lost' } });
    const pending = (await (await fetch(`${b.url}/session/${sessionId}/pending-prompts`)).json()) as { pendingPrompts: unknown[] };
    expect(pending.pendingPrompts).toEqual([]);
  });

  it('3: POST /session with one Idempotency-Key sent to two nodes creates one session', async () => {
    const [a, b] = [await start('node-a'), await start('node-b')];
    const payload = JSON.stringify({ sessionScope: 'thread' });
    const first = await post(`${a.url}/session`, payload, { 'Idempotency-Key': 'create-1' });
    expect(first.status).toBe(200);
    const created = (await first.json()) as { sessionId: string; clientId: string };
    const second = await post(`${b.url}/session`, payload, { 'Idempotency-Key': 'create-1' });
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await second.json()).toEqual(created);
    // Another body under the same key is refused on any node.
    const other = await post(`${b.url}/session`, JSON.stringify({ sessionScope: 'single' }), { 'Idempotency-Key': 'create-1' });
    expect(other.status).toBe(422);
    // The answer's client id works through the other node too (forwarded to the owner).
    const prompt = await post(`${b.url}/session/${created.sessionId}/prompt`, body('hi'), { 'X-Qwen-Client-Id': created.clientId });
    expect(prompt.status).toBe(202);
  });

  it('3: a create key answered by one node replays on another after Redis lost its data (FLUSHALL)', async () => {
    const [a, b] = [await start('node-a'), await start('node-b')];
    const payload = JSON.stringify({ sessionScope: 'thread' });
    const first = await post(`${a.url}/session`, payload, { 'Idempotency-Key': 'create-2' });
    expect(first.status).toBe(200);
    const created = (await first.json()) as { sessionId: string; clientId: string };
    const admin = new Redis(redis.url);
    await admin.flushall();
    await admin.quit();

    const second = await post(`${b.url}/session`, payload, { 'Idempotency-Key': 'create-2' });
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await second.json()).toEqual(created);
    const other = await post(`${b.url}/session`, JSON.stringify({ sessionScope: 'single' }), { 'Idempotency-Key': 'create-2' });
    expect(other.status).toBe(422);
  });

  it('4: prompts lost with a node that nobody loads again are settled by a live node and announced as turn.error daemon_lost', async () => {
    receiver = await WebhookReceiver.start();
    const [a] = [await start('node-a', operator()), await start('node-b', operator())];
    const { sessionId, running, queued } = await runningAndQueued(a);
    await kill(a);

    // Node b's sweep (every few leases) claims the session nobody holds and settles it: no load.
    const events = [await nextWithin(receiver, 30_000), await nextWithin(receiver, 30_000)];
    const byPrompt = new Map(events.map((event) => [JSON.parse(event.body).data.promptId as string, event]));
    expect([...byPrompt.keys()].sort()).toEqual([running, queued.promptId].sort());
    for (const [promptId, event] of byPrompt) {
      expect(JSON.parse(event.body)).toMatchObject({
        type: 'turn.error',
        data: { sessionId, state: 'error', error: { code: 'daemon_lost' } },
      });
      expect(event.headers['webhook-id']).toBe(deliveryIdOf(promptId, 'turn.error', { kind: 'operator' }));
    }
  });

  it('4: a single daemon settles, at start, the prompts its previous run left in flight, and announces them', async () => {
    receiver = await WebhookReceiver.start();
    const first = await start(undefined, operator());
    const { sessionId, running, queued } = await runningAndQueued(first);
    await kill(first);

    await start(undefined, operator());
    const events = [await nextWithin(receiver, 30_000), await nextWithin(receiver, 30_000)];
    const prompts = events.map((event) => JSON.parse(event.body)).map((event) => [event.type, event.data.sessionId, event.data.promptId]);
    expect(prompts.sort()).toEqual(
      [
        ['turn.error', sessionId, running],
        ['turn.error', sessionId, queued.promptId],
      ].sort(),
    );
  });

  it('5: after Redis restarts empty, a live node’s outbox is not adopted; a dead one’s still is', async () => {
    receiver = await WebhookReceiver.start(() => 'hang');
    const a = await startDaemonProcess(join(dist, 'daemon', 'bin.js'), {
      TURNS_DATA_DIR: dataDir,
      TURNS_WORKSPACES: dataDir,
      TURNS_REDIS_URL: redis.url,
      TURNS_NODE_ID: 'node-a',
      TURNS_LEASE_MS: String(LEASE_MS),
      TURNS_WEBHOOK_TIMEOUT_MS: '600000',
      ...operator(),
    });
    nodes.push(a);
    // Node b in this process, so the test runs its sweeps and drives the clock its adoption rule reads (the cluster's MonotonicClock).
    inProcess = await startDaemon({
      dataDir,
      workspaces: [dataDir],
      redisUrl: redis.url,
      nodeId: 'node-b',
      leaseMs: LEASE_MS,
      webhookAllow: ['127.0.0.1'],
    });
    const adoption = inProcess.app.get(WebhookOutboxAdoption);
    const { sessionId } = (await (await post(`${a.url}/session`, '{}')).json()) as { sessionId: string };
    await post(`${a.url}/session/${sessionId}/prompt`, JSON.stringify({ prompt: [{ type: 'text', text: 'x' }] }));
    await receiver.next();
    const outboxA = join(dataDir, 'webhooks', 'outbox-node-a');
    expect(pendingDeliveries(outboxA)).toHaveLength(1);

    // Node a alive but not yet announced again (held still, so its renewal cannot win the race); Redis restarts empty.
    a.child.kill('SIGSTOP');
    const port = redis.port;
    await redis.kill();
    redis = await startRedis(port);
    await inProcess.app.get(LeaseDirectory).ready(10_000);
    expect(await adoption.sweep()).toBe(0);
    expect(pendingDeliveries(outboxA)).toHaveLength(1);

    // Announced again: still alive after a lease, still its own.
    a.child.kill('SIGCONT');
    const admin = new Redis(redis.url);
    await eventually(async () => ((await admin.exists('turns:node:node-a')) === 1 ? true : undefined));
    jest.spyOn(inProcess.app.get(MonotonicClock), 'now').mockImplementation(() => performance.now() + LEASE_MS + 1);
    expect(await adoption.sweep()).toBe(0);
    expect(pendingDeliveries(outboxA)).toHaveLength(1);

    // Dead: its heartbeat expires, and its outbox is taken, the directory renamed away first.
    await kill(a);
    await eventually(async () => ((await admin.exists('turns:node:node-a')) === 0 ? true : undefined));
    await admin.quit();
    // This sweep or node b's own timer takes it (whichever comes first): what counts is that it moved, once.
    await adoption.sweep();
    expect(readdirSync(join(dataDir, 'webhooks'))).not.toContain('outbox-node-a');
    await eventually(() => (pendingDeliveries(join(dataDir, 'webhooks', 'outbox-node-b')).length === 1 ? true : undefined));
  });
});
