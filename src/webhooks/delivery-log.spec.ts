import { DeliveryLog } from './delivery-log.js';
import type { WebhookDelivery } from './webhook-delivery.js';

const delivery = (deliveryId: string, webhookId = 'wh_1', sessionId = 's1'): WebhookDelivery => ({
  deliveryId,
  target: { kind: 'subscription', file: '/x', webhookId },
  sessionId,
  promptId: 'p1',
  type: 'turn.completed',
  body: '{}',
  attempts: 0,
  nextAttemptAt: 0,
  createdAt: 0,
});

describe('DeliveryLog', () => {
  it('keeps one row a delivery, updated in place, oldest first', () => {
    const log = new DeliveryLog();
    log.record(delivery('d1'), 'pending');
    log.record(delivery('d2'), 'pending');
    log.record(delivery('d1'), 'delivered');
    expect(log.of('s1', 'wh_1').map((row) => [row.deliveryId, row.state])).toEqual([
      ['d1', 'delivered'],
      ['d2', 'pending'],
    ]);
    expect(log.of('s1', 'wh_other')).toEqual([]);
  });

  it('drops the oldest row past its rows, and the oldest subscription past its subscriptions', () => {
    const log = new DeliveryLog(2, 2);
    for (const id of ['d1', 'd2', 'd3']) log.record(delivery(id), 'pending');
    expect(log.of('s1', 'wh_1').map((row) => row.deliveryId)).toEqual(['d2', 'd3']);
    log.record(delivery('e1', 'wh_2'), 'pending');
    log.record(delivery('f1', 'wh_3'), 'pending');
    expect(log.of('s1', 'wh_1')).toEqual([]);
    expect(log.of('s1', 'wh_3').map((row) => row.deliveryId)).toEqual(['f1']);
  });

  it('keeps no log for the operator endpoint', () => {
    const log = new DeliveryLog();
    log.record({ ...delivery('d1'), target: { kind: 'operator' } }, 'pending');
    expect(log.of('s1', 'wh_1')).toEqual([]);
  });
});
