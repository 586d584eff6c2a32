import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { SystemClock } from '../src/common/clock.js';
import { WebhookDispatcher } from '../src/webhooks/webhook-dispatcher.js';
import { webhookSettings } from '../src/webhooks/webhooks.settings.js';
import type { WebhookSubscriptions } from '../src/webhooks/webhook-subscriptions.service.js';
import { generateWebhookSecret } from '../src/webhooks/webhook-secret.js';
import { mountTinyDisk, tinyDiskUnavailable, type TinyDisk } from './support/tiny-disk.js';
import { pendingDeliveries, WebhookReceiver, type ReceivedWebhook } from './support/webhook-receiver.js';

/** The next request, or `undefined` once `ms` have passed without one. */
const nextWithin = (receiver: WebhookReceiver, ms: number): Promise<ReceivedWebhook | undefined> =>
  Promise.race([receiver.next(), new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms).unref())]);

/** The dispatcher against a real receiver and an outbox on a real disk that fills up between two attempts. */
describe('WebhookDispatcher when the rewrite after a failed attempt fails (a full disk)', () => {
  const unavailable = tinyDiskUnavailable();
  let mounted: TinyDisk | undefined;
  let receiver: WebhookReceiver | undefined;
  let dispatcher: WebhookDispatcher | undefined;
  afterAll(async () => {
    dispatcher?.onApplicationShutdown();
    await receiver?.close();
    mounted?.unmount();
  });

  (unavailable ? it.skip : it)(
    `keeps the delivery under the file it has and tries it again when due${unavailable ? ` — skipped: ${unavailable}` : ''}`,
    async () => {
      const disk = mountTinyDisk('1m');
      if (typeof disk === 'string') throw new Error(disk);
      mounted = disk;
      // The first attempt fails, and the disk is full by the time the dispatcher rewrites the delivery for its retry.
      receiver = await WebhookReceiver.start((_request, index) => {
        if (index === 0) mounted!.fill();
        return { status: index === 0 ? 500 : 204 };
      });
      const outboxDir = join(mounted!.dir, 'outbox');
      const settings = webhookSettings(
        { url: receiver.url, secret: generateWebhookSecret(), retryBaseMs: 50, maxAttempts: 5, outboxDir },
        mounted!.dir,
      );
      dispatcher = new WebhookDispatcher(settings, {} as WebhookSubscriptions, new SystemClock());
      dispatcher.onApplicationBootstrap();
      const deliveryId = `msg_${randomUUID()}`;
      const now = Date.now();
      await dispatcher.enqueue({
        deliveryId,
        target: { kind: 'operator' },
        sessionId: 's',
        promptId: 'p',
        type: 'turn.completed',
        body: JSON.stringify({ type: 'turn.completed', timestamp: now, data: { sessionId: 's', state: 'completed', promptId: 'p' } }),
        attempts: 0,
        nextAttemptAt: now,
        createdAt: now,
      });
      const first = await receiver.next();
      expect(first.headers['webhook-id']).toBe(deliveryId);
      // The retry is due within a few hundred ms (base 50 ms, jittered); 10 s is far past it.
      const second = await nextWithin(receiver, 10_000);
      expect(second?.headers['webhook-id']).toBe(deliveryId);
      for (let i = 0; i < 200 && pendingDeliveries(outboxDir).length > 0; i += 1) await new Promise((r) => setTimeout(r, 10));
      expect(pendingDeliveries(outboxDir)).toEqual([]);
    },
    30_000,
  );
});
