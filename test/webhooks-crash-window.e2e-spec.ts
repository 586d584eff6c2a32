import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PromptLedger } from '../src/ledger/prompt-ledger.js';
import { QueuedWebhookEvents, queuedKey } from '../src/webhooks/queued-webhook-events.js';
import { verifyTurnWebhook } from '../src/webhooks/turn-webhook-signature.js';
import { deliveryIdOf, type WebhookDelivery } from '../src/webhooks/webhook-delivery.js';
import { WebhookDispatcher } from '../src/webhooks/webhook-dispatcher.js';
import { deferred, settle } from './support/deferred.js';
import { pollTurn } from './support/poll.js';
import { startDaemon, tempDir, type TestDaemon } from './support/test-daemon.js';
import { pendingDeliveries, WebhookReceiver } from './support/webhook-receiver.js';

const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

/**
 * A `kill -9` after a turn's terminal is in the ledger but before its
 * deliveries reach the outbox (chaos SEED=2931, 3-min schedule 18): the next
 * `load` of the session queues the event, once, under its stable webhook-id.
 */
describe('a webhook event lost between the terminal and the outbox write', () => {
  jest.setTimeout(60_000);
  let receiver: WebhookReceiver;
  let dataDir: string;
  const daemons: TestDaemon[] = [];

  const start = async (operator = true) => {
    const daemon = await startDaemon({
      dataDir,
      webhookAllow: ['127.0.0.1'],
      ...(operator && { webhookUrl: receiver.url, webhookSecret: SECRET }),
    });
    daemons.push(daemon);
    return daemon;
  };
  /** Counts what the daemon's dispatcher is asked to queue; `hold` keeps every enqueue from reaching the outbox. */
  const watchEnqueue = (daemon: TestDaemon, hold = false) => {
    const dispatcher = daemon.app.get(WebhookDispatcher);
    const queued: WebhookDelivery[] = [];
    const reached = deferred<void>();
    const enqueue = dispatcher.enqueue.bind(dispatcher);
    dispatcher.enqueue = (delivery) => {
      queued.push(delivery);
      reached.resolve();
      return hold ? new Promise<void>(() => undefined) : enqueue(delivery);
    };
    return { queued, reached: reached.promise };
  };
  const completedTurn = async (daemon: TestDaemon, sessionId: string) => {
    const promptId = await daemon.prompt(sessionId, 'settle me');
    const turn = await daemon.engine.nextTurn();
    turn.say('settled');
    turn.finish();
    await pollTurn(daemon, sessionId, promptId);
    return promptId;
  };

  /** Waits (bounded; each round lets the write finish) for the line that records the turn's event as decided. */
  const decided = async (daemon: TestDaemon, sessionId: string, promptId: string) => {
    const events = daemon.app.get(QueuedWebhookEvents);
    for (let i = 0; i < 200 && !(await events.read(sessionId)).keys.has(queuedKey(promptId, 'turn.completed')); i += 1) await settle();
    return events.fileOf(sessionId)!;
  };

  beforeEach(async () => {
    dataDir = tempDir('turns-crash-window-');
    receiver = await WebhookReceiver.start();
  });
  afterEach(async () => {
    for (const daemon of daemons.splice(0)) await daemon.close();
    await receiver.close();
  });

  it('queues the event at the next load, under the webhook-id it would have had, and verifiably signed', async () => {
    const first = await start();
    const { sessionId } = await first.createSession();
    const held = watchEnqueue(first, true);
    const promptId = await completedTurn(first, sessionId);
    await held.reached;
    await first.app.get(PromptLedger).flush(sessionId);
    // The crash window: the ledger holds the terminal, the outbox nothing.
    expect(pendingDeliveries(join(dataDir, 'webhooks', 'outbox'))).toEqual([]);
    await first.close();

    const second = await start();
    const requeued = watchEnqueue(second);
    await second.http.post(`/session/${sessionId}/load`).expect(200);
    // The load answered after the event was queued.
    expect(requeued.queued.map((d) => [d.promptId, d.type, d.deliveryId])).toEqual([
      [promptId, 'turn.completed', deliveryIdOf(promptId, 'turn.completed', { kind: 'operator' })],
    ]);
    const request = await receiver.next();
    expect(request.headers['webhook-id']).toBe(held.queued[0].deliveryId);
    expect(verifyTurnWebhook(SECRET, request.body, request.headers)).toMatchObject({
      type: 'turn.completed',
      data: { sessionId, promptId, state: 'completed' },
    });
  });

  it('queues nothing at a load for a terminal whose event reached the outbox before', async () => {
    const first = await start();
    const { sessionId } = await first.createSession();
    const promptId = await completedTurn(first, sessionId);
    await receiver.next();
    // The line follows the outbox write, which the delivery followed: bounded, each round lets the write finish.
    const marks = await decided(first, sessionId, promptId);
    await first.close();
    expect(readFileSync(marks, 'utf8')).toContain(`"promptId":"${promptId}","type":"turn.completed"`);

    const second = await start();
    const requeued = watchEnqueue(second);
    await second.http.post(`/session/${sessionId}/load`).expect(200);
    expect(requeued.queued).toEqual([]);
  });

  it('queues nothing for a turn that settled before its session was subscribed to', async () => {
    const first = await start(false);
    const { sessionId } = await first.createSession();
    const promptId = await completedTurn(first, sessionId);
    // Owed to nobody when it settled, and recorded as decided.
    await decided(first, sessionId, promptId);
    await first.http.post(`/session/${sessionId}/webhooks`).send({ url: receiver.url }).expect(201);
    await first.close();

    const second = await start(false);
    const requeued = watchEnqueue(second);
    await second.http.post(`/session/${sessionId}/load`).expect(200);
    expect(requeued.queued).toEqual([]);
  });

  it('queues nothing for a session older than its record (no record file: a version before it), and starts one', async () => {
    const first = await start();
    const { sessionId } = await first.createSession();
    const held = watchEnqueue(first, true);
    await completedTurn(first, sessionId);
    await held.reached;
    const marks = first.app.get(QueuedWebhookEvents).fileOf(sessionId)!;
    await first.app.get(PromptLedger).flush(sessionId);
    await first.close();
    rmSync(marks);

    const second = await start();
    const requeued = watchEnqueue(second);
    await second.http.post(`/session/${sessionId}/load`).expect(200);
    expect(requeued.queued).toEqual([]);
    expect(JSON.parse(readFileSync(marks, 'utf8'))).toEqual({ since: expect.any(Number) });
  });
});
