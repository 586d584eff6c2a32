import { ClientKeyBound } from './client-key-bound.js';

describe('ClientKeyBound', () => {
  let now = 0;
  const bound = (max: number) => new ClientKeyBound(max, 1_000, () => now);
  beforeEach(() => (now = 0));

  it('admits up to max keys a window, and a key it admitted again and again', () => {
    const keys = bound(2);
    expect([keys.admit('a'), keys.admit('b'), keys.admit('c')]).toEqual([true, true, false]);
    expect(keys.admit('a')).toBe(true);
    expect(keys.size).toBe(2);
  });

  it('keeps the last window keys (their buckets may still live), then forgets them', () => {
    const keys = bound(2);
    keys.admit('a');
    keys.admit('b');
    now = 1_000;
    expect(keys.admit('c')).toBe(false); // a and b may still hold buckets
    expect(keys.admit('a')).toBe(true);
    now = 2_000;
    expect(keys.admit('c')).toBe(true); // b is gone; a moved on
    expect(keys.admit('d')).toBe(false);
    now = 4_500;
    expect([keys.admit('x'), keys.admit('y')]).toEqual([true, true]);
  });

  it('never holds more than max keys, whatever comes', () => {
    const keys = bound(100);
    for (let i = 0; i < 10_000; i++) {
      now = i * 7;
      keys.admit(`k${i}`);
      expect(keys.size).toBeLessThanOrEqual(100);
    }
  });
});
