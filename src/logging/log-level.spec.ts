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

  it('drops the undefined stack Nest passes for an error without one (no "extra":[null] in the line)', () => {
    expect(splitNestParams('error', [undefined, 'Daemon'])).toEqual({ context: 'Daemon', extra: [] });
    expect(splitNestParams('error', [undefined])).toEqual({ extra: [] });
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
    expect(requestLevel('/health', 200)).toBe('debug');
    expect(requestLevel('/health/ready', 503)).toBe('debug');
    expect(requestLevel('/session/:id/prompt', 202)).toBe('info');
    expect(requestLevel('/healthz', 200)).toBe('info');
    expect(requestLevel('unmatched', 404)).toBe('info');
    expect(requestLevel('forwarded', 200)).toBe('info');
  });

  it('logs a poll answered 200 or 304 at debug by default, at info when asked; a failed poll at info either way', () => {
    for (const route of ['/session/:id/turns/:promptId', '/session/:id/turns/current', '/session/:id/turns']) {
      expect([requestLevel(route, 200), requestLevel(route, 304)]).toEqual(['debug', 'debug']);
      expect([requestLevel(route, 200, 'info'), requestLevel(route, 304, 'info')]).toEqual(['info', 'info']);
      for (const status of [400, 401, 404, 429, 499, 500, 503]) expect(requestLevel(route, status)).toBe('info');
    }
    expect(requestLevel('/health', 200, 'info')).toBe('debug');
  });
});
