import { duplicateDeliveries, senderOf } from '../../chaos/checker/duplicates.js';
import { delivery, pid, runOf, SID } from './synthetic-run.js';

describe('chaos checker: duplicate deliveries, counted not judged', () => {
  it('names the sender by the path each node was given', () => {
    expect(senderOf({ path: '/hook/n2' })).toBe('n2');
    expect(senderOf({ path: `/sub/${SID}` })).toBe('subscription');
    expect(senderOf({})).toBe('?');
  });

  it('counts webhook-ids answered 2xx more than once, per sender and across senders', () => {
    const history = [
      delivery(0, pid(1), { path: '/hook/n1' }),
      delivery(100, pid(1), { path: '/hook/n1' }), // the same node again (an answer lost on the way back)
      delivery(200, pid(1), { path: '/hook/n2' }), // an adopted outbox sent it too
      delivery(300, pid(2), { path: '/hook/n2' }),
      delivery(400, pid(2), { path: '/hook/n2', answered: 500 }), // not a delivery: refused
      delivery(500, pid(2), { path: `/sub/${SID}` }), // a subscription's copy is its own
    ];
    expect(duplicateDeliveries(runOf(history))).toEqual({
      ids: 3,
      duplicated: 1,
      extra: 2,
      acrossSenders: 1,
      bySender: { n1: { delivered: 2, duplicates: 1 }, n2: { delivered: 2, duplicates: 0 }, subscription: { delivered: 1, duplicates: 0 } },
    });
  });
});
