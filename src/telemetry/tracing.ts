// OpenTelemetry through `@opentelemetry/api`, an optional peer: loaded once
// with a dynamic import, and only when asked for (tracingWanted) — it is in
// every install (prom-client depends on it), so being installed says nothing.
// Until then every call below is a check of one variable. With the API but no
// SDK registered, spans are the API's non-recording ones. Only the few shapes
// used here are typed locally, so no declaration of this package names the API's types.

/** The part of an OpenTelemetry span this package uses. */
export interface TurnSpan {
  isRecording(): boolean;
  setAttribute(key: string, value: string | number | boolean): unknown;
  setAttributes(attributes: Attributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(): void;
}

type Attributes = Record<string, string | number | boolean | undefined>;

interface Tracer {
  startSpan(name: string, options?: { kind?: number }, context?: unknown): TurnSpan;
}

interface OtelApi {
  trace: {
    getTracer(name: string, version?: string): Tracer;
    setSpan(context: unknown, span: TurnSpan): unknown;
    getSpan(context: unknown): TurnSpan | undefined;
  };
  context: { active(): unknown; with<T>(context: unknown, fn: () => T): T };
  propagation: {
    inject(context: unknown, carrier: Record<string, unknown>): void;
    extract(context: unknown, carrier: Record<string, unknown>): unknown;
  };
  ROOT_CONTEXT: unknown;
}

/** Span kinds, as the API numbers them. */
export const SpanKind = { INTERNAL: 0, SERVER: 1, CLIENT: 2 } as const;
/** `SpanStatusCode.ERROR`. */
const STATUS_ERROR = 2;
const TRACER_NAME = 'nest-turn-status';

let api: OtelApi | undefined;
/** The API's proxy tracer, made once: it forwards to whatever SDK registers later. */
let tracer: Tracer | undefined;
let loading: Promise<boolean> | undefined;

/** Where every copy of the API (major 1) registers its globals: an SDK's tracer provider is its `trace`. */
const API_GLOBALS = Symbol.for('opentelemetry.js.api.1');

/**
 * Whether to load the API: when asked (`TURNS_TRACING`), or when a tracer
 * provider was registered before start (an SDK's `start()`, read from the
 * API's global registration without loading the package).
 */
export function tracingWanted(asked: boolean, global: object = globalThis): boolean {
  return asked || (global as { [API_GLOBALS]?: { trace?: unknown } })[API_GLOBALS]?.trace !== undefined;
}

/**
 * Loads `@opentelemetry/api` if it is installed (once; later calls share the
 * first). Resolves with whether it is; a missing API is not an error.
 */
export function loadOpenTelemetry(): Promise<boolean> {
  loading ??= import('@opentelemetry/api').then(
    (loaded) => {
      // The namespace, not its `default` (which lacks ROOT_CONTEXT).
      api = loaded as unknown as OtelApi;
      tracer = api.trace.getTracer(TRACER_NAME);
      return true;
    },
    () => false,
  );
  return loading;
}

/** True once the API is loaded: callers skip building attributes otherwise. */
export function tracingEnabled(): boolean {
  return api !== undefined;
}

/**
 * Starts a span, a child of the active one, or of `parent` when given
 * (a context from {@link captureContext}). `undefined` without the API, and
 * for a span nobody records (no SDK registered, or not sampled): callers
 * then set no attributes and activate no context, so the API alone costs
 * one non-recording span per call.
 */
export function startSpan(name: string, kind: number = SpanKind.INTERNAL, parent?: unknown): TurnSpan | undefined {
  if (!api || !tracer) return undefined;
  const span = tracer.startSpan(name, { kind }, parent ?? api.context.active());
  return span.isRecording() ? span : undefined;
}

/** Runs `fn` with `span` active, so spans started inside are its children. */
export function withSpan<T>(span: TurnSpan | undefined, fn: () => T): T {
  if (!api || !span) return fn();
  return api.context.with(api.trace.setSpan(api.context.active(), span), fn);
}

/** The active context, to parent a span started later (a prompt's execution, under its admission). */
export function captureContext(span?: TurnSpan): unknown {
  if (!api) return undefined;
  return span ? api.trace.setSpan(api.context.active(), span) : api.context.active();
}

/** Ends a span, marking it failed when `error` is given. */
export function endSpan(span: TurnSpan | undefined, error?: unknown): void {
  if (!span) return;
  if (error !== undefined) span.setStatus({ code: STATUS_ERROR, message: error instanceof Error ? error.name : 'error' });
  span.end();
}

/** Runs `fn` in a new span, active inside it, ended when `fn` returns or throws (then marked failed). */
export function inSpan<T>(name: string, fn: (span: TurnSpan | undefined) => T): T {
  const span = startSpan(name);
  try {
    const result = withSpan(span, () => fn(span));
    endSpan(span);
    return result;
  } catch (error) {
    endSpan(span, error);
    throw error;
  }
}

/** Adds the active trace context (`traceparent`, `tracestate`) to outgoing headers. */
export function injectTraceContext(headers: Record<string, unknown>): void {
  api?.propagation.inject(api.context.active(), headers);
}

/**
 * Runs `fn` in the trace context an incoming request carries, unless a span
 * is already active (an HTTP instrumentation made one for this request).
 */
export function withIncomingContext<T>(headers: Record<string, unknown>, fn: () => T): T {
  if (!api || headers.traceparent === undefined || api.trace.getSpan(api.context.active())) return fn();
  let incoming: unknown;
  try {
    incoming = api.propagation.extract(api.ROOT_CONTEXT, headers);
  } catch {
    // A host's propagator that throws must not cost the request.
    return fn();
  }
  return api.context.with(incoming, fn);
}

/** Sets an attribute on the active span, if any (a scan reports the records it read to its poll's span). */
export function setActiveSpanAttribute(key: string, value: string | number | boolean): void {
  if (!api) return;
  api.trace.getSpan(api.context.active())?.setAttribute(key, value);
}
