import { splitNestParams } from './log-level.js';

describe('splitNestParams', () => {
  it('takes a trailing string as the context', () => {
    expect(splitNestParams('log', ['Cluster'])).toEqual({ context: 'Cluster', extra: [] });
    expect(splitNestParams('warn', [])).toEqual({ extra: [] });
  });

  it('for error, takes the string before the context as the stack', () => {
    expect(splitNestParams('error', ['Error: x\n    at y', 'Daemon'])).toEqual({
      context: 'Daemon',
      stack: 'Error: x\n    at y',
      extra: [],
    });
    // Only a context: Nest passes (message, context).
    expect(splitNestParams('error', ['Daemon'])).toEqual({ context: 'Daemon', extra: [] });
  });

  it('keeps anything else as extra data', () => {
    expect(splitNestParams('log', [{ a: 1 }, 'Ctx'])).toEqual({ context: 'Ctx', extra: [{ a: 1 }] });
    expect(splitNestParams('log', [42])).toEqual({ extra: [42] });
  });
});
