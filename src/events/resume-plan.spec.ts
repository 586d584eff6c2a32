import { planResume } from './resume-plan.js';

const ring = { epoch: 'e1', lastEventId: 20, earliestAvailableId: 11 };

describe('planResume', () => {
  it('opens live without a Last-Event-ID', () => {
    expect(planResume(ring, undefined, 'e1')).toEqual({ kind: 'live' });
    expect(planResume(ring, undefined, 'other')).toEqual({ kind: 'live' });
  });

  it('replays within the ring of the same epoch, with or without the epoch header', () => {
    expect(planResume(ring, 10, 'e1')).toEqual({ kind: 'replay', afterId: 10 });
    expect(planResume(ring, 20, undefined)).toEqual({ kind: 'replay', afterId: 20 });
  });

  it('asks for a resync when the epoch differs', () => {
    expect(planResume(ring, 5, 'e0')).toEqual({ kind: 'resync', reason: 'epoch_reset', lastDeliveredId: 5, earliestAvailableId: 11 });
  });

  it('treats an id this epoch never reached as another epoch', () => {
    expect(planResume(ring, 21, undefined)).toMatchObject({ kind: 'resync', reason: 'epoch_reset', lastDeliveredId: 21 });
  });

  it('asks for a resync when events after the cursor were evicted', () => {
    expect(planResume(ring, 9, 'e1')).toEqual({ kind: 'resync', reason: 'ring_evicted', lastDeliveredId: 9, earliestAvailableId: 11 });
  });

  it('replays from 0 while nothing was evicted', () => {
    expect(planResume({ epoch: 'e1', lastEventId: 3, earliestAvailableId: 1 }, 0, 'e1')).toEqual({ kind: 'replay', afterId: 0 });
  });
});
