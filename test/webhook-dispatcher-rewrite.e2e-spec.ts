import { randomUUID } from 'node:crypto';
import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { SystemClock } from '../src/common/clock.js';
import type { WebhookDelivery } from '../src/webhooks/webhook-delivery.js';
import { WebhookDispatcher } from '../src/webhooks/webhook-dispatcher.js';
import { WebhookOutbox } from '../src/webhooks/webhook-outbox.js';
import { webhookSettings } from '../src/webhooks/webhooks.settings.js';
import type { WebhookSubscriptions } from '../src/webhooks/webhook-subscriptions.service.js';
import { generateWebhookSecret } from '../src/webhooks/webhook-secret.js';
import { deferred } from './support/deferred.js';
import { eventually } from './support/eventually.js';
import { tempDir } from './support/test-daemon.js';
import { WebhookReceiver, type WebhookAnswer } from './support/webhook-receiver.js';

const SESSION = 's1';
const WEBHOOK = 'wh_1';

/** The dispatcher against a real receiver and a real outbox directory, its rewrite after a failed attempt held or failed on purpose. */
describe('WebhookDispatcher rewriting a delivery after a failed attempt', () => {
  let receiver: WebhookReceiver;
  let dispatcher: WebhookDispatcher;
  let outboxDir: string;
  afterEach(async () => {
    jest.restoreAllMocks();
    dispatcher.onApplicationShutdown();
    await receiver.close();
  });

  const start = async (answer: () => WebhookAnswer, options: { retryBaseMs: number; maxAttempts: number }): Promise<WebhookDelivery> => {
    receiver = await WebhookReceiver.start(answer);
    const dir = tempDir();
    outboxDir = join(dir, 'outbox');
    const settings = webhookSettings({ secret: generateWebhookSecret(), allow: ['127.0.0.1'], outboxDir, ...options }, dir);
    const secret = generateWebhookSecret();
    const subscriptions = {
      read: () => Promise.resolve([{ webhookId: WEBHOOK, url: receiver.url, events: ['turn.completed'], createdAt: 0, secret }]),
    } as unknown as WebhookSubscriptions;
    dispatcher = new WebhookDispatcher(settings, subscriptions, new SystemClock());
    dispatcher.onApplicationBootstrap();
    const now = Date.now();
    const delivery: WebhookDelivery = {
      deliveryId: `msg_${randomUUID()}`,
      target: { kind: 'subscription', file: join(dir, 'webhooks.json'), webhookId: WEBHOOK },
      sessionId: SESSION,
      promptId: 'p1',
      type: 'turn.completed',
      body: JSON.stringify({ type: 'turn.completed', timestamp: now, data: { sessionId: SESSION, state: 'completed', promptId: 'p1' } }),
      attempts: 0,
      nextAttemptAt: now,
      createdAt: now,
    };
    await dispatcher.enqueue(delivery);
    return delivery;
  };
  const row = () => dispatcher.deliveries(SESSION, WEBHOOK)[0];

  it('shows the failed attempt in its log only once the outbox holds the one rewritten file (the e2e "counts attempts" race)', async () => {
    const removing = deferred<void>();
    const release = deferred<void>();
    const remove = WebhookOutbox.prototype.remove;
    // Held between the new file's rename and the old one's removal: the delivery has two files then.
    jest.spyOn(WebhookOutbox.prototype, 'remove').mockImplementation(async function (this: WebhookOutbox, ...args) {
      removing.resolve();
      await release.promise;
      return remove.apply(this, args);
    });
    await start(() => ({ status: 500 }), { retryBaseMs: 3_600_000, maxAttempts: 5 });
    await receiver.next();
    await removing.promise;
    expect(await dispatcher.outboxDepth()).toBe(2);
    expect(row()).toMatchObject({ state: 'pending', attempts: 0 });
    release.resolve();
    await eventually(() => (row()?.attempts === 1 ? true : undefined));
    expect(row()).toMatchObject({ state: 'pending', attempts: 1, lastStatus: 500 });
    expect(await dispatcher.outboxDepth()).toBe(1);
    expect(dispatcher.pending).toBe(1);
  });

  it('forgets a delivery whose outbox another node adopted before its rewrite, instead of writing it into a new outbox', async () => {
    const adopter = join(tempDir(), 'adopted');
    // The adopter renames the outbox away while the attempt is in flight.
    await start(
      () => {
        renameSync(outboxDir, adopter);
        return { status: 500 };
      },
      { retryBaseMs: 3_600_000, maxAttempts: 5 },
    );
    await receiver.next();
    await eventually(() => (dispatcher.pending === 0 ? true : undefined), 5_000);
    expect(existsSync(outboxDir)).toBe(false);
    expect(dispatcher.failing).toBe(0);
    expect(await new WebhookOutbox(adopter).count()).toBe(1);
  });

  it('counts the attempts of a delivery whose rewrite fails (a full disk) and gives it up after the last', async () => {
    const put = WebhookOutbox.prototype.put;
    jest.spyOn(WebhookOutbox.prototype, 'put').mockImplementation(function (this: WebhookOutbox, delivery, previousAt) {
      if (previousAt === undefined) return put.call(this, delivery);
      return Promise.reject(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
    });
    await start(() => ({ status: 500 }), { retryBaseMs: 1, maxAttempts: 3 });
    for (let i = 0; i < 3; i += 1) await receiver.next();
    // Before: every attempt read `attempts: 0` from the file it was kept under, so the third was never the last.
    await eventually(() => (row()?.state === 'failed' ? true : undefined), 5_000);
    expect(row()).toMatchObject({ state: 'failed', attempts: 3 });
    expect(await dispatcher.outboxDepth()).toBe(0);
    expect(receiver.requests).toHaveLength(3);
  });
});
