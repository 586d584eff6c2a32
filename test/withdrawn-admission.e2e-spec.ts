import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { compileSources } from './support/compiled.js';
import { startDaemonProcess, type DaemonProcess } from './support/daemon-process.js';
import { HAS_REDIS, startRedis, type RedisProcess } from './support/redis-server.js';
import { WebhookReceiver, type ReceivedWebhook } from './support/webhook-receiver.js';

// Long enough that no renewal runs while the case plays out: the old owner keeps taking its lease for fresh.
const LEASE_MS = 60_000;
const SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
const json = { 'content-type': 'application/json' };

const promptOf = (request: ReceivedWebhook) => (JSON.parse(request.body) as { data: { promptId: string } }).data.promptId;

/**
 * Nothing announces a prompt whose admission was refused (chaos signature
 * `webhook-delivery:unknown-prompt`): two daemons (Express, Fastify) on one
 * redis-server and one data dir, both sending every session's terminals to
 * one operator endpoint. The old owner, its lease key gone (`DEL`) while its
 * connection stays up, admits a prompt, finds the new owner's fence once it
 * writes the record, closes the session and answers `503 session_fenced`.
 */
(HAS_REDIS ? describe : describe.skip)('a refused admission announces nothing (redis-server + 2 daemons)', () => {
  jest.setTimeout(60_000);
  let dataDir: string;
  let redis: RedisProcess;
  let admin: Redis;
  let receiver: WebhookReceiver;
  let a: DaemonProcess;
  let b: DaemonProcess;

  const start = (dist: string, id: string, adapter: 'express' | 'fastify') =>
    startDaemonProcess(join(dist, 'daemon', 'bin.js'), {
      TURNS_DATA_DIR: dataDir,
      TURNS_WORKSPACES: dataDir,
      TURNS_HTTP_ADAPTER: adapter,
      TURNS_ECHO_DELAY_MS: '20',
      TURNS_REDIS_URL: redis.url,
      TURNS_NODE_ID: id,
      TURNS_LEASE_MS: String(LEASE_MS),
      TURNS_WEBHOOK_URL: `${receiver.url}/${id}`,
      TURNS_WEBHOOK_SECRET: SECRET,
      TURNS_WEBHOOK_ALLOW: '127.0.0.1',
    });

  beforeAll(async () => {
    const dist = compileSources('withdrawn-admission');
    dataDir = mkdtempSync(join(tmpdir(), 'turns-withdrawn-'));
    redis = await startRedis();
    admin = new Redis(redis.url, { retryStrategy: () => 200 });
    admin.on('error', () => undefined);
    receiver = await WebhookReceiver.start();
    [a, b] = await Promise.all([start(dist, 'node-a', 'express'), start(dist, 'node-b', 'fastify')]);
  }, 240_000);

  afterAll(async () => {
    admin?.disconnect();
    for (const node of [a, b]) {
      if (node && node.child.exitCode === null && node.child.signalCode === null) {
        node.child.kill('SIGKILL');
        await node.exited;
      }
    }
    await receiver?.close();
    await redis?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function admitted(url: string, sessionId: string, text: string, key: string): Promise<Response> {
    return fetch(`${url}/session/${sessionId}/prompt`, {
      method: 'POST',
      headers: { ...json, 'idempotency-key': key },
      body: JSON.stringify({ prompt: [{ type: 'text', text }] }),
    });
  }

  /** The next delivery the operator's endpoint got, in order of arrival. */
  async function nextDelivery(): Promise<{ type: string; promptId: string }> {
    const request = await receiver.next();
    return { type: (JSON.parse(request.body) as { type: string }).type, promptId: promptOf(request) };
  }

  it('the old owner answers 503 session_fenced and sends no webhook for it; every delivery names an acknowledged prompt', async () => {
    const created = await fetch(`${a.url}/session`, { method: 'POST', headers: json, body: JSON.stringify({ sessionScope: 'thread' }) });
    const { sessionId } = (await created.json()) as { sessionId: string };
    const first = await admitted(a.url, sessionId, 'before', 'key-1');
    expect(first.status).toBe(202);
    const { promptId: before } = (await first.json()) as { promptId: string };
    expect(await nextDelivery()).toMatchObject({ type: 'turn.completed', promptId: before });

    // Redis loses A's lease and heartbeat (an eviction takes both): B's claim asks nobody, and A, its connection up,
    // still trusts its lease when the next prompt reaches it (the handover, which closes this first, is cluster.e2e's).
    // A Redis that kept its data for longer than a lease (the cluster started less than one ago): no loss to distrust.
    await admin.del('turns:data-lost');
    await admin.del(`turns:lease:${sessionId}`, 'turns:node:node-a');
    const loaded = await fetch(`${b.url}/session/${sessionId}/load`, { method: 'POST' });
    expect([loaded.status, loaded.headers.get('x-turns-node')]).toEqual([200, 'node-b']);
    const refused = await admitted(a.url, sessionId, 'after', 'key-2');
    expect([refused.status, refused.headers.get('x-turns-node')]).toEqual([503, 'node-a']);
    expect(await refused.json()).toMatchObject({ code: 'session_fenced', sessionId });

    // Sent again, it reaches the owner: the next delivery is its terminal, and nothing for the refused one came first.
    const again = await admitted(a.url, sessionId, 'after', 'key-2');
    expect([again.status, again.headers.get('x-turns-node')]).toEqual([202, 'node-b']);
    const { promptId: after } = (await again.json()) as { promptId: string };
    expect(await nextDelivery()).toMatchObject({ type: 'turn.completed', promptId: after });
    expect(receiver.requests.map(promptOf)).toEqual([before, after]);
  });
});
