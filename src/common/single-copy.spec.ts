import { assertSingleCopy } from './single-copy.js';

const REGISTRY = Symbol.for('nest-turn-status.loaded-copy');
const registry = globalThis as Record<symbol, unknown>;

describe('assertSingleCopy', () => {
  const before = registry[REGISTRY];
  afterEach(() => {
    registry[REGISTRY] = before;
  });

  it('lets the same copy load its entry points any number of times', () => {
    expect(() => {
      assertSingleCopy();
      assertSingleCopy();
    }).not.toThrow();
  });

  it('refuses a second copy in the process (the other build, or another install), naming both', () => {
    registry[REGISTRY] = {};
    expect(() => assertSingleCopy()).toThrow(/loaded twice in this process \(its ESM and CommonJS builds, or two installed copies\)/);
  });
});
