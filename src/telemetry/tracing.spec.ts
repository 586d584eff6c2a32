type Tracing = typeof import('./tracing.js');

/** A fresh copy of the tracing module, with `@opentelemetry/api` made unloadable when `missing`. */
function freshTracing(missing: boolean): Tracing {
  let tracing!: Tracing;
  jest.isolateModules(() => {
    if (missing) {
      jest.doMock('@opentelemetry/api', () => {
        throw Object.assign(new Error("Cannot find module '@opentelemetry/api'"), { code: 'MODULE_NOT_FOUND' });
      });
    }
    tracing = jest.requireActual('./tracing.js');
  });
  return tracing;
}

afterEach(() => jest.dontMock('@opentelemetry/api'));

describe('tracing without @opentelemetry/api installed', () => {
  it('loads nothing, and every call is a no-op that still runs the work', async () => {
    const tracing = freshTracing(true);
    await expect(tracing.loadOpenTelemetry()).resolves.toBe(false);
    expect(tracing.tracingEnabled()).toBe(false);
    const span = tracing.startSpan('turns.poll');
    expect(span).toBeUndefined();
    expect(tracing.withSpan(span, () => 42)).toBe(42);
    expect(tracing.withIncomingContext({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }, () => 'ran')).toBe(
      'ran',
    );
    const headers: Record<string, unknown> = {};
    tracing.injectTraceContext(headers);
    expect(headers).toEqual({});
    expect(() => tracing.endSpan(span, new Error('x'))).not.toThrow();
  });
});

describe('tracing with the API but no SDK registered', () => {
  it('loads once; the non-recording spans the API gives are no span to callers, and no context goes outward', async () => {
    const tracing = freshTracing(false);
    const first = tracing.loadOpenTelemetry();
    expect(tracing.loadOpenTelemetry()).toBe(first);
    await expect(first).resolves.toBe(true);
    expect(tracing.tracingEnabled()).toBe(true);
    expect(tracing.startSpan('turns.poll')).toBeUndefined();
    expect(tracing.withSpan(undefined, () => 'inside')).toBe('inside');
    const headers: Record<string, unknown> = {};
    tracing.injectTraceContext(headers);
    expect(headers).toEqual({});
  });
});

describe('whether to load the API', () => {
  const API_GLOBALS = Symbol.for('opentelemetry.js.api.1');

  it('only when asked, or when a tracer provider is registered on the API global (not for a propagator alone, nor another major)', () => {
    const { tracingWanted } = freshTracing(false);
    expect(tracingWanted(false, {})).toBe(false);
    expect(tracingWanted(true, {})).toBe(true);
    expect(tracingWanted(false, { [API_GLOBALS]: { version: '1.9.1', propagation: {} } })).toBe(false);
    expect(tracingWanted(false, { [API_GLOBALS]: { version: '1.9.1', trace: {} } })).toBe(true);
    expect(tracingWanted(false, { [Symbol.for('opentelemetry.js.api.2')]: { trace: {} } })).toBe(false);
  });

  it('reads the registration the API itself makes, without loading it', () => {
    const { tracingWanted } = freshTracing(false);
    const { trace } = jest.requireActual<typeof import('@opentelemetry/api')>('@opentelemetry/api');
    expect(tracingWanted(false)).toBe(false);
    trace.setGlobalTracerProvider(trace.getTracerProvider());
    try {
      expect(tracingWanted(false)).toBe(true);
    } finally {
      trace.disable();
    }
    expect(tracingWanted(false)).toBe(false);
  });
});
