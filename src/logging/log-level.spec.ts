import { pinoLevelOf, requestLevel, splitNestParams } from './log-level.js';

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

describe('pinoLevelOf', () => {
  it("puts Nest's module and route-mapping lines at debug, and nothing else", () => {
    for (const context of ['InstanceLoader', 'RoutesResolver', 'RouterExplorer']) expect(pinoLevelOf('log', context)).toBe('debug');
    expect(pinoLevelOf('warn', 'RouterExplorer')).toBe('warn');
    expect(pinoLevelOf('log', 'NestApplication')).toBe('info');
    expect(pinoLevelOf('log', 'Daemon')).toBe('info');
    expect(pinoLevelOf('log', undefined)).toBe('info');
    expect(pinoLevelOf('verbose', 'Daemon')).toBe('trace');
  });
});

describe('requestLevel', () => {
  it('logs the probes at debug, every other route at info', () => {
    expect(requestLevel('/health')).toBe('debug');
    expect(requestLevel('/health/ready')).toBe('debug');
    expect(requestLevel('/session/:id/turns/:promptId')).toBe('info');
    expect(requestLevel('/healthz')).toBe('info');
    expect(requestLevel('unmatched')).toBe('info');
  });
});
