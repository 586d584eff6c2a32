import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileSources } from './support/compiled.js';
import { startDaemonProcess, type DaemonProcess } from './support/daemon-process.js';
import { pendingDeliveries, WebhookReceiver } from './support/webhook-receiver.js';

/** The daemon as operators run it, killed with SIGKILL while deliveries are pending. */
describe('webhook deliveries survive kill -9', () => {
  jest.setTimeout(120_000);
  let bin: string;
  let dataDir: string;
  let daemon: DaemonProcess | undefined;
  let receiver: WebhookReceiver;

  beforeAll(() => {
    bin = join(compileSources('webhooks-restart'), 'daemon', 'bin.js');
  });
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'turns-webhooks-'));
  });
  afterEach(async () => {
    daemon?.child.kill('SIGKILL');
    await daemon?.exited;
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const env = () => ({
    TURNS_DATA_DIR: dataDir,
    TURNS_WORKSPACES: dataDir,
    TURNS_WEBHOOK_ALLOW: '127.0.0.1',
    TURNS_WEBHOOK_RETRY_BASE_MS: '50',
    // The hung attempts must still be in flight when the daemon is killed.
    TURNS_WEBHOOK_TIMEOUT_MS: '600000',
  });
  const post = async (url: string, body: unknown) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return (await res.json()) as Record<string, string>;
  };

  it('sends every pending delivery again after a restart, with the same webhook-id', async () => {
    // Every attempt before the kill hangs: nothing is acknowledged.
    let killed = false;
    receiver = await WebhookReceiver.start(() => (killed ? { status: 200 } : 'hang'));
    daemon = await startDaemonProcess(bin, env(), ['serve']);
    const { sessionId } = await post(`${daemon.url}/session`, {});
    await post(`${daemon.url}/session/${sessionId}/webhooks`, { url: receiver.url });
    const promptIds = new Set<string>();
    for (const text of ['one', 'two', 'three'])
      promptIds.add((await post(`${daemon.url}/session/${sessionId}/prompt`, { prompt: [{ type: 'text', text }] })).promptId);
    const before = [await receiver.next(), await receiver.next(), await receiver.next()];
    expect(pendingDeliveries(join(dataDir, 'webhooks', 'outbox'))).toHaveLength(3);

    daemon.child.kill('SIGKILL');
    await daemon.exited;
    killed = true;
    daemon = await startDaemonProcess(bin, env(), ['serve']);
    const after = [await receiver.next(), await receiver.next(), await receiver.next()];

    const ids = (requests: typeof before) => new Set(requests.map((r) => r.headers['webhook-id']));
    expect(ids(after)).toEqual(ids(before));
    expect(new Set(after.map((r) => JSON.parse(r.body).data.promptId))).toEqual(promptIds);
    for (const request of after)
      expect(JSON.parse(request.body)).toMatchObject({ type: 'turn.completed', data: { sessionId, state: 'completed' } });
    // Delivered: the outbox empties (each removal follows its 2xx).
    for (let i = 0; i < 200 && pendingDeliveries(join(dataDir, 'webhooks', 'outbox')).length > 0; i += 1)
      await new Promise((r) => setTimeout(r, 25));
    expect(pendingDeliveries(join(dataDir, 'webhooks', 'outbox'))).toEqual([]);
  });
});
