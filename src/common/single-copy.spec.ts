import { assertSingleCopy } from './single-copy.js';

const REGISTRY = Symbol.for('nest-turn-status.loaded-copy');
const registry = globalThis as Record<symbol, unknown>;

describe('assertSingleCopy', () => {
  const before = registry[REGISTRY];
  afterEach(() => {
    registry[REGISTRY] = before;
  });

  it('lets the same copy load its entry points any number of times, also when evaluated again', () => {
    expect(() => {
      assertSingleCopy();
      assertSingleCopy();
    }).not.toThrow();
    expect(registry[REGISTRY]).toMatch(/single-copy\.ts$/);
    jest.isolateModules(() => {
      // A fresh evaluation of the same file (jest.resetModules, hot reload) is the same copy.
      const again = jest.requireActual<typeof import('./single-copy.js')>('./single-copy.js');
      expect(() => again.assertSingleCopy()).not.toThrow();
    });
  });

  it('refuses a second copy in the process (the other build, or another install), naming both', () => {
    registry[REGISTRY] = '/app/node_modules/nest-turn-status/dist/common/single-copy.js';
    expect(() => assertSingleCopy()).toThrow(
      /loaded twice in this process \(its ESM and CommonJS builds, or two installed copies: \/app\/node_modules\/nest-turn-status\/dist\/common\/single-copy\.js and .*single-copy\.ts\)/,
    );
  });
});
