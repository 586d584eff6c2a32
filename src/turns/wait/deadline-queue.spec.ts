import fc from 'fast-check';
import { DeadlineQueue } from './deadline-queue.js';

describe('DeadlineQueue', () => {
  afterEach(() => jest.useRealTimers());

  it('expires items in deadline order behind one timer, skipping removed ones', () => {
    jest.useFakeTimers();
    let now = 0;
    const queue = new DeadlineQueue(() => now);
    const expired: number[] = [];
    const item = (deadline: number) => ({ deadline, expire: () => expired.push(deadline) });
    const a = item(300);
    queue.add(a);
    queue.add(item(100));
    queue.add(item(200));
    expect(jest.getTimerCount()).toBe(1);
    queue.remove(a);
    now = 250;
    jest.advanceTimersByTime(250);
    expect(expired).toEqual([100, 200]);
    now = 400;
    jest.advanceTimersByTime(150);
    expect(expired).toEqual([100, 200]);
    expect(queue.size).toBe(0);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('always pops the earliest deadline', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(10_000), { maxLength: 200 }), (deadlines) => {
        let now = 0;
        const queue = new DeadlineQueue(() => now);
        const expired: number[] = [];
        for (const deadline of deadlines) queue.add({ deadline, expire: () => expired.push(deadline) });
        now = 10_000;
        queue.run();
        queue.stop();
        expect(expired).toEqual([...deadlines].sort((x, y) => x - y));
      }),
    );
  });
});

describe('DeadlineQueue removal', () => {
  it('keeps nothing of a removed item, and rebuilds the heap once most slots are empty', () => {
    let now = 0;
    const queue = new DeadlineQueue(() => now);
    const expired: number[] = [];
    const items = Array.from({ length: 200 }, (_, i) => ({ deadline: 1_000 + i, expire: () => expired.push(i) }));
    for (const item of items) queue.add(item);
    for (const item of items.slice(0, 150)) queue.remove(item);
    expect(queue.size).toBe(50);
    expect(queue.slotCount).toBeLessThan(200);
    now = 5_000;
    queue.run();
    queue.stop();
    expect(expired).toEqual(Array.from({ length: 50 }, (_, i) => 150 + i));
  });
});
