import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { SystemClock } from '../src/common/clock.js';
import type { WebhookDelivery } from '../src/webhooks/webhook-delivery.js';
import { WebhookDispatcher } from '../src/webhooks/webhook-dispatcher.js';
import { generateWebhookSecret } from '../src/webhooks/webhook-secret.js';
import { webhookSettings, type WebhookOptions } from '../src/webhooks/webhooks.settings.js';
import type { StoredWebhook } from '../src/webhooks/webhook-subscription.js';
import type { WebhookSubscriptions } from '../src/webhooks/webhook-subscriptions.service.js';
import { tempDir } from './support/test-daemon.js';
import { answering, WebhookReceiver } from './support/webhook-receiver.js';

type Line = { level: 'warn' | 'log'; message: string };

/** The dispatcher's log lines, captured from Nest's Logger (whatever logger the app would have). */
function captureDispatcherLog(): { lines: Line[]; restore(): void } {
  const lines: Line[] = [];
  const spies = (['warn', 'log'] as const).map((level) =>
    jest.spyOn(Logger.prototype, level).mockImplementation(function (this: Logger, message: unknown, ..._rest: unknown[]) {
      if ((this as unknown as { context?: string }).context === 'WebhookDispatcher') lines.push({ level, message: String(message) });
    }),
  );
  return { lines, restore: () => spies.forEach((spy) => spy.mockRestore()) };
}

/** Waits (bounded) until the delivery log of a subscription says `state` for its `index`th delivery. */
async function settled(dispatcher: WebhookDispatcher, webhookId: string, state: 'delivered' | 'failed', index = 0): Promise<void> {
  for (let i = 0; i < 500 && dispatcher.deliveries('s1', webhookId)[index]?.state !== state; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  expect(dispatcher.deliveries('s1', webhookId)[index]?.state).toBe(state);
}

describe('the webhook dispatcher logs a failing receiver loudly, once per change', () => {
  let dir: string;
  let dispatcher: WebhookDispatcher | undefined;
  let log: ReturnType<typeof captureDispatcherLog>;
  const receivers: WebhookReceiver[] = [];
  let webhooks: StoredWebhook[];

  beforeEach(() => {
    dir = tempDir();
    webhooks = [];
    log = captureDispatcherLog();
  });
  afterEach(async () => {
    dispatcher?.onApplicationShutdown();
    log.restore();
    await Promise.all(receivers.splice(0).map((r) => r.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  function start(options: Partial<WebhookOptions> = {}): WebhookDispatcher {
    const subscriptions = { read: () => Promise.resolve(webhooks), disable: () => Promise.resolve() } as unknown as WebhookSubscriptions;
    const settings = webhookSettings({ retryBaseMs: 1, maxAttempts: 10, outboxDir: join(dir, 'outbox'), ...options }, dir);
    dispatcher = new WebhookDispatcher(settings, subscriptions, new SystemClock());
    dispatcher.onApplicationBootstrap();
    return dispatcher;
  }

  function subscribe(webhookId: string, url: string): void {
    webhooks.push({ webhookId, url, events: ['turn.completed'], createdAt: 0, secret: generateWebhookSecret() });
  }

  const delivery = (webhookId: string): WebhookDelivery => {
    const now = Date.now();
    return {
      deliveryId: `msg_${randomUUID()}`,
      target: { kind: 'subscription', file: 'unused', webhookId },
      sessionId: 's1',
      promptId: 'p1',
      type: 'turn.completed',
      body: '{}',
      attempts: 0,
      nextAttemptAt: now,
      createdAt: now,
    };
  };

  it('warns when a subscription turns failing (401), not on each retry, and says info when it delivers again', async () => {
    const bad = await WebhookReceiver.start(answering(401, 401, 401, 204));
    const good = await WebhookReceiver.start(answering(204));
    receivers.push(bad, good);
    subscribe('wh_bad', bad.url);
    subscribe('wh_good', good.url);
    const dispatching = start({ allow: ['127.0.0.0/8'] });
    await dispatching.enqueue(delivery('wh_bad'));
    await dispatching.enqueue(delivery('wh_good'));
    await settled(dispatching, 'wh_bad', 'delivered');
    await settled(dispatching, 'wh_good', 'delivered');
    expect(bad.requests).toHaveLength(4);
    expect(log.lines).toEqual([
      {
        level: 'warn',
        message:
          'webhook wh_bad of session s1 is failing: HTTP 401 (the receiver refused the signature or the token: check its secret); ' +
          'retrying (attempt 1 of 10); logged again when it recovers',
      },
      { level: 'log', message: 'webhook wh_bad of session s1 delivers again' },
    ]);
    // Never the URL (a path may carry a secret).
    for (const { message } of log.lines) expect(message).not.toContain(String(bad.port));
  });

  it('warns once for a receiver that refuses connections, across retries, a given-up delivery and the next one', async () => {
    const gone = await WebhookReceiver.start();
    const url = gone.url;
    await gone.close();
    subscribe('wh_down', url);
    const dispatching = start({ allow: ['127.0.0.0/8'], maxAttempts: 3 });
    await dispatching.enqueue(delivery('wh_down'));
    await settled(dispatching, 'wh_down', 'failed');
    expect(dispatching.deliveries('s1', 'wh_down')[0]).toMatchObject({ attempts: 3, lastError: 'ECONNREFUSED' });
    await dispatching.enqueue(delivery('wh_down'));
    await settled(dispatching, 'wh_down', 'failed', 1);
    const warned = log.lines.filter((line) => line.level === 'warn');
    expect(warned).toEqual([
      {
        level: 'warn',
        message: expect.stringMatching(/^webhook wh_down of session s1 is failing: ECONNREFUSED; retrying \(attempt 1 of 3\)/),
      },
    ]);
  });

  it('names the SSRF refusal and the setting that allows the receiver, when its host turned private', async () => {
    const local = await WebhookReceiver.start();
    receivers.push(local);
    subscribe('wh_local', local.url);
    const dispatching = start({ maxAttempts: 2 });
    await dispatching.enqueue(delivery('wh_local'));
    await settled(dispatching, 'wh_local', 'failed');
    expect(local.requests).toHaveLength(0);
    expect(log.lines).toEqual([
      {
        level: 'warn',
        message: expect.stringContaining('webhook wh_local of session s1 is failing: webhook_url_forbidden (host resolves to a loopback'),
      },
    ]);
    expect(log.lines[0]!.message).toContain('TURNS_WEBHOOK_ALLOW');
  });

  it('warns when a 410 disables a subscription', async () => {
    const leaving = await WebhookReceiver.start(answering(410));
    receivers.push(leaving);
    subscribe('wh_gone', leaving.url);
    const dispatching = start({ allow: ['127.0.0.0/8'] });
    await dispatching.enqueue(delivery('wh_gone'));
    await settled(dispatching, 'wh_gone', 'failed');
    expect(log.lines).toEqual([
      { level: 'warn', message: 'webhook wh_gone of session s1 is failing: HTTP 410; the subscription is disabled' },
    ]);
  });
});
