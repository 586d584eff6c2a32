import { OwnerCache } from './owner-cache.js';

describe('OwnerCache', () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => (now = 1_000));

  it('answers within its time and forgets after', () => {
    const cache = new OwnerCache<string>(100, 10, clock);
    cache.set('s', 'node-a');
    now += 99;
    expect(cache.get('s')).toBe('node-a');
    now += 1;
    expect(cache.get('s')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('drops the oldest entry at its bound', () => {
    const cache = new OwnerCache<number>(1_000, 2, clock);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([undefined, 2, 3]);
  });

  it('renewing an entry makes it the newest', () => {
    const cache = new OwnerCache<number>(1_000, 2, clock);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('a', 10);
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([10, undefined, 3]);
  });

  it('caches nothing with a zero time', () => {
    const cache = new OwnerCache<number>(0, 2, clock);
    cache.set('a', 1);
    expect(cache.get('a')).toBeUndefined();
  });

  it('never keeps an entry past the time it is given (the lease it names expires first)', () => {
    const cache = new OwnerCache<string>(1_000, 10, clock);
    cache.set('s', 'node-a', 300);
    now += 299;
    expect(cache.get('s')).toBe('node-a');
    now += 1;
    expect(cache.get('s')).toBeUndefined();
    cache.set('s', 'node-a', 5_000);
    now += 1_000;
    expect(cache.get('s')).toBeUndefined();
    cache.set('s', 'node-a');
    cache.set('s', 'node-b', 0);
    expect(cache.get('s')).toBeUndefined();
  });

  it('deletes on demand', () => {
    const cache = new OwnerCache<number>(1_000, 2, clock);
    cache.set('a', 1);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
  });
});
