import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileSources } from './support/compiled.js';
import { startDaemonProcess, type DaemonProcess } from './support/daemon-process.js';
import { HAS_REDIS, startRedis, type RedisProcess } from './support/redis-server.js';
import { pendingDeliveries, WebhookReceiver } from './support/webhook-receiver.js';

const LEASE_MS = 1_000;

/**
 * Two compiled daemons on one redis-server and one data dir; the node that
 * queued the deliveries is killed with SIGKILL while they are pending.
 */
(HAS_REDIS ? describe : describe.skip)('webhooks in cluster mode: a dead node’s pending deliveries', () => {
  jest.setTimeout(90_000);
  let dist: string;
  let dataDir: string;
  let redis: RedisProcess;
  let a: DaemonProcess | undefined;
  let b: DaemonProcess | undefined;
  let receiver: WebhookReceiver;

  const start = (id: string) =>
    startDaemonProcess(join(dist, 'daemon', 'bin.js'), {
      TURNS_DATA_DIR: dataDir,
      TURNS_WORKSPACES: dataDir,
      TURNS_REDIS_URL: redis.url,
      TURNS_NODE_ID: id,
      TURNS_LEASE_MS: String(LEASE_MS),
      TURNS_WEBHOOK_ALLOW: '127.0.0.1',
      TURNS_WEBHOOK_RETRY_BASE_MS: '50',
      TURNS_WEBHOOK_TIMEOUT_MS: '600000',
    });
  const post = async (url: string, body: unknown) =>
    (await (
      await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    ).json()) as Record<string, string>;

  beforeAll(async () => {
    dist = compileSources('webhooks-cluster');
    redis = await startRedis();
  });
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'turns-webhooks-cluster-'));
  });
  afterEach(async () => {
    for (const node of [a, b]) {
      node?.child.kill('SIGKILL');
      await node?.exited;
    }
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  afterAll(async () => {
    await redis?.kill();
  });

  it('are delivered by a live node once the dead one’s heartbeat expires, each at most once more', async () => {
    let aKilled = false;
    receiver = await WebhookReceiver.start(() => (aKilled ? { status: 200 } : 'hang'));
    [a, b] = await Promise.all([start('node-a'), start('node-b')]);
    const { sessionId } = await post(`${a.url}/session`, {});
    await post(`${a.url}/session/${sessionId}/webhooks`, { url: receiver.url });
    for (const text of ['one', 'two']) await post(`${a.url}/session/${sessionId}/prompt`, { prompt: [{ type: 'text', text }] });
    const before = [await receiver.next(), await receiver.next()];
    expect(pendingDeliveries(join(dataDir, 'webhooks', 'outbox-node-a'))).toHaveLength(2);

    a.child.kill('SIGKILL');
    await a.exited;
    aKilled = true;
    const after = [await receiver.next(), await receiver.next()];

    const ids = (requests: typeof before) => requests.map((r) => r.headers['webhook-id']).sort();
    expect(ids(after)).toEqual(ids(before));
    // Node b sent them from its own outbox; node a's is empty once they are delivered.
    for (let i = 0; i < 200 && pendingDeliveries(join(dataDir, 'webhooks', 'outbox-node-b')).length > 0; i += 1)
      await new Promise((r) => setTimeout(r, 25));
    expect(pendingDeliveries(join(dataDir, 'webhooks', 'outbox-node-a'))).toEqual([]);
    expect(pendingDeliveries(join(dataDir, 'webhooks', 'outbox-node-b'))).toEqual([]);
    // Each was sent once before the kill and once after: at most once more.
    expect(receiver.requests).toHaveLength(4);
  });
});
