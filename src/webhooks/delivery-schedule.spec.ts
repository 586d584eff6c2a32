import { DeliverySchedule, earliestEntries } from './delivery-schedule.js';
import type { OutboxEntry } from './webhook-outbox.js';

const entry = (n: number, at: number): OutboxEntry => ({ deliveryId: `d${n}`, at });

async function* listing(entries: OutboxEntry[]): AsyncGenerator<OutboxEntry> {
  for (const e of entries) yield e;
}

describe('DeliverySchedule', () => {
  it('holds at most its bound and says when one has to wait on disk', () => {
    const schedule = new DeliverySchedule(2);
    expect([schedule.add('a', 30), schedule.add('b', 10), schedule.add('c', 5)]).toEqual([true, true, false]);
    expect(schedule.size).toBe(2);
    expect(schedule.has('c')).toBe(false);
    expect(schedule.earliest()).toBe(10);
    expect(new DeliverySchedule(1).earliest()).toBe(Infinity);
  });

  it('takes out the due ones only, at most the limit, in the order scheduled', () => {
    const schedule = new DeliverySchedule(10);
    for (const [id, at] of [
      ['a', 5],
      ['b', 50],
      ['c', 1],
      ['d', 2],
    ] as const)
      schedule.add(id, at);
    expect(schedule.takeDue(10, 2)).toEqual([
      { deliveryId: 'a', at: 5 },
      { deliveryId: 'c', at: 1 },
    ]);
    expect(schedule.takeDue(10, 0)).toEqual([]);
    expect(schedule.takeDue(10, 5)).toEqual([{ deliveryId: 'd', at: 2 }]);
    expect(schedule.size).toBe(1);
    expect(schedule.earliest()).toBe(50);
  });

  it('a delivery kept under its old file (its rewrite failed) is taken out by that file, when it is due', () => {
    const schedule = new DeliverySchedule(10);
    schedule.add('a', 5, 40);
    expect(schedule.earliest()).toBe(40);
    expect(schedule.takeDue(39, 5)).toEqual([]);
    expect(schedule.takeDue(40, 5)).toEqual([{ deliveryId: 'a', at: 5 }]);
  });

  it('admits earlier listed entries in place of the latest scheduled, and says what is left on disk', () => {
    const schedule = new DeliverySchedule(2);
    schedule.add('late', 100);
    schedule.add('mid', 50);
    expect(schedule.admit([entry(1, 10), entry(2, 60)])).toBe(true);
    expect(schedule.has('d1') && schedule.has('mid')).toBe(true);
    expect(schedule.has('late') || schedule.has('d2')).toBe(false);
    expect(new DeliverySchedule(3).admit([entry(1, 1), entry(2, 2)])).toBe(false);
  });
});

describe('earliestEntries', () => {
  const signal = new AbortController().signal;

  it('keeps the earliest of a listing, sorted, and says whether there were more', async () => {
    const listed = [entry(1, 40), entry(2, 10), entry(3, 30), entry(4, 10), entry(5, 20)];
    await expect(earliestEntries(listing(listed), 3, () => false, signal)).resolves.toEqual({
      earliest: [entry(2, 10), entry(4, 10), entry(5, 20)],
      more: true,
    });
    await expect(earliestEntries(listing(listed), 5, () => false, signal)).resolves.toMatchObject({ more: false });
  });

  it('skips what is already held, and stops once aborted', async () => {
    const listed = [entry(1, 1), entry(2, 2)];
    await expect(earliestEntries(listing(listed), 1, (id) => id === 'd1', signal)).resolves.toEqual({
      earliest: [entry(2, 2)],
      more: false,
    });
    const stopped = new AbortController();
    stopped.abort();
    await expect(earliestEntries(listing(listed), 5, () => false, stopped.signal)).resolves.toBeUndefined();
  });
});
