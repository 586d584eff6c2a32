import { deliveriesOf, deliveryIdOf } from './webhook-delivery.js';

const P1 = '5c1d2a8e-7f7b-4a44-9a57-1f2e3d4c5b6a';
const P2 = '6d2e3b9f-8a8c-4b55-8b68-2a3f4e5d6c7b';
const OPERATOR = { kind: 'operator' } as const;
const subscription = (webhookId: string) => ({ kind: 'subscription', file: '/d/s.webhooks.json', webhookId }) as const;

describe('deliveryIdOf', () => {
  it('is the same id for the same prompt, event type and receiver, whenever it is made', () => {
    expect(deliveryIdOf(P1, 'turn.completed', OPERATOR)).toBe(deliveryIdOf(P1, 'turn.completed', OPERATOR));
    // The subscription file is where the receiver is read from, not who it is.
    expect(deliveryIdOf(P1, 'turn.error', subscription('wh_a'))).toBe(
      deliveryIdOf(P1, 'turn.error', { ...subscription('wh_a'), file: '/elsewhere' }),
    );
  });

  it('differs by prompt, by event type and by receiver', () => {
    const ids = new Set([
      deliveryIdOf(P1, 'turn.completed', OPERATOR),
      deliveryIdOf(P2, 'turn.completed', OPERATOR),
      deliveryIdOf(P1, 'turn.error', OPERATOR),
      deliveryIdOf(P1, 'turn.completed', subscription('wh_a')),
      deliveryIdOf(P1, 'turn.completed', subscription('wh_b')),
    ]);
    expect(ids.size).toBe(5);
  });

  it('has the shape of the ids the outbox names its files by (msg_ and a UUID)', () => {
    expect(deliveryIdOf(P1, 'turn.started', OPERATOR)).toMatch(/^msg_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });
});

describe('deliveriesOf', () => {
  it('makes one delivery of the event to each receiver, due when the event was made, its id derived from the key', () => {
    const event = { key: P2, sessionId: 's1', promptId: P1, type: 'turn.completed', body: '{}', at: 1_000 } as const;
    const deliveries = deliveriesOf(event, [OPERATOR, subscription('wh_a')]);
    expect(deliveries).toEqual(
      [OPERATOR, subscription('wh_a')].map((target) => ({
        deliveryId: deliveryIdOf(P2, 'turn.completed', target),
        target,
        sessionId: 's1',
        promptId: P1,
        type: 'turn.completed',
        body: '{}',
        attempts: 0,
        nextAttemptAt: 1_000,
        createdAt: 1_000,
      })),
    );
    expect(deliveriesOf(event, [])).toEqual([]);
  });
});
