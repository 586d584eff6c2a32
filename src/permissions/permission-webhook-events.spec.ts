import { deferred, settle } from '../../test/support/deferred.js';
import { bridgeRig, text } from '../../test/support/fake-session-runner.js';
import type { StoredWebhook } from '../webhooks/webhook-subscription.js';
import type { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import type { WebhookSubscriptions } from '../webhooks/webhook-subscriptions.service.js';
import { PermissionBroker } from './permission-broker.js';
import { PermissionWebhookEvents } from './permission-webhook-events.js';

const REQUEST = {
  toolCall: { toolCallId: 'c1', title: 'echo ran > marker.txt', kind: 'execute' },
  options: [
    { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
    { optionId: 'no', name: 'Reject', kind: 'reject_once' },
  ],
};
const SUBSCRIBED: StoredWebhook = {
  webhookId: 'wh_1',
  url: 'http://127.0.0.1:1/hook',
  events: ['turn.permission_requested'],
  createdAt: 0,
  secret: 'whsec_x',
};

/**
 * A running prompt whose agent asks approval, with the session's subscriptions read held until the test lets
 * it go (the file read the event waits on), and the messages queued to the outbox.
 */
function rig() {
  const bridgeParts = bridgeRig();
  const broker = new PermissionBroker(bridgeParts.runner, bridgeParts.events, bridgeParts.clock, {
    permissionPolicy: 'ask',
    permissionResponder: 'first-responder',
  });
  const bridge = bridgeParts.bridge({}, broker);
  const read = deferred<StoredWebhook[]>();
  const subscriptions = { fileOf: () => '/data/s.webhooks.json', read: () => read.promise } as unknown as WebhookSubscriptions;
  const queued: string[] = [];
  const dispatcher = {
    enqueueEach: async (event: { key: string }) => void queued.push(event.key),
  } as unknown as WebhookDispatcher;
  const webhooks = new PermissionWebhookEvents(broker, bridge, subscriptions, dispatcher, bridgeParts.clock);
  webhooks.onModuleInit();
  bridge.admit('s', text('shell'));
  const asked = bridgeParts.dispatched[0]!.input.requestPermission!(REQUEST);
  const requestId = broker.pendingInSession('s')[0]!.requestId;
  return { broker, read, queued, asked, requestId, stop: () => webhooks.onModuleDestroy() };
}

describe('PermissionWebhookEvents (turn.permission_requested)', () => {
  it('queues the request once the subscriptions are read, while it is still pending', async () => {
    const { read, queued, requestId, stop } = rig();
    read.resolve([SUBSCRIBED]);
    await settle();
    expect(queued).toEqual([requestId]);
    stop();
  });

  it('queues nothing for a request answered while the subscriptions were read (its turn still running)', async () => {
    const { broker, read, queued, asked, requestId, stop } = rig();
    broker.answer(requestId, { outcome: 'selected', optionId: 'yes' }, undefined);
    await asked;
    read.resolve([SUBSCRIBED]);
    await settle();
    expect(queued).toEqual([]);
    stop();
  });
});
