import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { SystemClock } from '../src/common/clock.js';
import { WebhookDispatcher } from '../src/webhooks/webhook-dispatcher.js';
import { WebhookOutbox } from '../src/webhooks/webhook-outbox.js';
import { webhookSettings } from '../src/webhooks/webhooks.settings.js';
import type { WebhookSubscriptions } from '../src/webhooks/webhook-subscriptions.service.js';
import { generateWebhookSecret } from '../src/webhooks/webhook-secret.js';
import { tempDir } from './support/test-daemon.js';
import { pendingDeliveries, WebhookReceiver } from './support/webhook-receiver.js';

/** The dispatcher against a real receiver and a real outbox directory, with a small in-memory schedule. */
describe('WebhookDispatcher with more pending deliveries than it schedules in memory', () => {
  let receiver: WebhookReceiver;
  let dispatcher: WebhookDispatcher;
  afterEach(async () => {
    dispatcher.onApplicationShutdown();
    await receiver.close();
  });

  it('keeps at most its bound in memory, the rest on disk, and delivers all of them once the receiver is back', async () => {
    let down = true;
    receiver = await WebhookReceiver.start(() => ({ status: down ? 500 : 204 }));
    const dir = tempDir();
    const settings = {
      ...webhookSettings(
        { url: receiver.url, secret: generateWebhookSecret(), retryBaseMs: 1, maxAttempts: 1_000, outboxDir: join(dir, 'outbox') },
        dir,
      ),
      maxScheduled: 5,
      maxConcurrent: 2,
    };
    dispatcher = new WebhookDispatcher(settings, {} as WebhookSubscriptions, new SystemClock());
    dispatcher.onApplicationBootstrap();
    const ids: string[] = [];
    let most = 0;
    for (let i = 0; i < 40; i += 1) {
      const deliveryId = `msg_${randomUUID()}`;
      ids.push(deliveryId);
      const now = Date.now();
      await dispatcher.enqueue({
        deliveryId,
        target: { kind: 'operator' },
        sessionId: 's',
        promptId: `p${i}`,
        type: 'turn.completed',
        body: JSON.stringify({ type: 'turn.completed', timestamp: now, data: { sessionId: 's', state: 'completed', promptId: `p${i}` } }),
        attempts: 0,
        nextAttemptAt: now,
        createdAt: now,
      });
      most = Math.max(most, dispatcher.pending);
    }
    expect(pendingDeliveries(join(dir, 'outbox'))).toHaveLength(40);
    // Down: every delivery is tried (and fails) at least twice, cycling through the small schedule.
    const attempts = new Map<string, number>();
    const seen = async () => {
      const request = await receiver.next();
      const id = request.headers['webhook-id'] as string;
      attempts.set(id, (attempts.get(id) ?? 0) + 1);
      most = Math.max(most, dispatcher.pending);
      return { id, failed: request.receivedAt < upSince };
    };
    let upSince = Infinity;
    while ([...attempts.values()].filter((n) => n >= 2).length < 40) await seen();
    down = false;
    upSince = Date.now();
    const delivered = new Set<string>();
    while (delivered.size < 40) {
      const { id, failed } = await seen();
      if (!failed) delivered.add(id);
    }
    expect([...delivered].sort()).toEqual([...ids].sort());
    expect(most).toBeLessThanOrEqual(settings.maxScheduled + settings.maxConcurrent);
    for (let i = 0; i < 200 && pendingDeliveries(join(dir, 'outbox')).length > 0; i += 1) await new Promise((r) => setTimeout(r, 10));
    expect(pendingDeliveries(join(dir, 'outbox'))).toEqual([]);
  });
});

/** The start's recovery renames a whole temp file into place: a live write's temp file must never be there for it to find. */
describe('WebhookDispatcher at start', () => {
  afterEach(() => jest.restoreAllMocks());

  it('writes a delivery enqueued during the recovery of interrupted writes only once that recovery is done', async () => {
    const dir = tempDir();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const recover = WebhookOutbox.prototype.recover;
    jest.spyOn(WebhookOutbox.prototype, 'recover').mockImplementationOnce(function (this: WebhookOutbox, dropTorn?: boolean) {
      return gate.then(() => recover.call(this, dropTorn));
    });
    const put = jest.spyOn(WebhookOutbox.prototype, 'put');
    const settings = webhookSettings({ url: 'http://127.0.0.1:9/', secret: generateWebhookSecret(), outboxDir: join(dir, 'outbox') }, dir);
    const dispatcher = new WebhookDispatcher(settings, {} as WebhookSubscriptions, new SystemClock());
    dispatcher.onApplicationBootstrap();
    const now = Date.now();
    const enqueued = dispatcher.enqueue({
      deliveryId: `msg_${randomUUID()}`,
      target: { kind: 'operator' },
      sessionId: 's',
      promptId: 'p1',
      type: 'turn.completed',
      body: '{}',
      attempts: 0,
      nextAttemptAt: now + 60_000,
      createdAt: now,
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(put).not.toHaveBeenCalled();
    release();
    await enqueued;
    expect(put).toHaveBeenCalledTimes(1);
    expect(pendingDeliveries(join(dir, 'outbox'))).toHaveLength(1);
    dispatcher.onApplicationShutdown();
  });
});
