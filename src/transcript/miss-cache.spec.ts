import { MissCache } from './miss-cache.js';

describe('MissCache', () => {
  const file = { ino: 1, size: 100, mtimeMs: 5 };

  it('answers a miss again only for the same file, size and mtime', () => {
    const cache = new MissCache();
    cache.add('s', 'p', file);
    expect(cache.has('s', 'p', file)).toBe(true);
    expect(cache.has('s', 'q', file)).toBe(false);
    expect(cache.has('t', 'p', file)).toBe(false);
    expect(cache.has('s', 'p', { ...file, size: 101 })).toBe(false);
    expect(cache.has('s', 'p', { ...file, mtimeMs: 6 })).toBe(false);
    expect(cache.has('s', 'p', { ...file, ino: 2 })).toBe(false);
    expect(cache.has('s', 'p', undefined)).toBe(false);
  });

  it("forgets a session's misses when its file changes", () => {
    const cache = new MissCache();
    cache.add('s', 'p', file);
    cache.add('s', 'q', { ...file, size: 200 });
    expect(cache.has('s', 'q', { ...file, size: 200 })).toBe(true);
    expect(cache.has('s', 'p', { ...file, size: 200 })).toBe(false);
  });
});
