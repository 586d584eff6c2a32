import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { compileSources } from './support/compiled.js';
import { startDaemonProcess } from './support/daemon-process.js';
import { HAS_REDIS, startRedis, type RedisProcess } from './support/redis-server.js';
import { startDaemon, tempDir, type TestDaemon } from './support/test-daemon.js';
import { eventually } from './support/eventually.js';

/**
 * The spans of one prompt, its polls and a forwarded poll, with the SDK's
 * in-memory exporter registered as a host would (sdk-node does the same):
 * two cluster nodes in this process share the exporter, so the tree across
 * them is visible.
 */
(HAS_REDIS ? describe : describe.skip)('OpenTelemetry spans (in-memory exporter, two cluster nodes)', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const contextManager = new AsyncLocalStorageContextManager();
  let redis: RedisProcess;
  let a: TestDaemon, b: TestDaemon;

  const named = (name: string) => exporter.getFinishedSpans().filter((span) => span.name === name);
  const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

  beforeAll(async () => {
    context.setGlobalContextManager(contextManager.enable());
    trace.setGlobalTracerProvider(provider);
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    redis = await startRedis();
    const dataDir = tempDir();
    const node = (nodeId: string, httpAdapter: 'express' | 'fastify') =>
      startDaemon({ httpAdapter, dataDir, workspaces: [dataDir], redisUrl: redis.url, nodeId, leaseMs: 5_000, forwardTimeoutMs: 2_000 });
    a = await node('node-a', 'express');
    b = await node('node-b', 'fastify');
  });

  afterAll(async () => {
    await b?.close();
    await a?.close(true);
    await redis?.kill();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  beforeEach(() => exporter.reset());

  it('admission → execution on the owner, under the forwarding span of the node that received the prompt', async () => {
    const { sessionId } = await a.createSession({ sessionScope: 'thread' });
    const res = await b.http
      .post(`/session/${sessionId}/prompt`)
      .send({ prompt: [{ type: 'text', text: 'hi' }] })
      .expect(202);
    const promptId = res.body.promptId as string;
    (await a.engine.nextTurn()).finish();
    const execute = await eventually(() => named('turns.prompt.execute')[0]);
    const [admit] = named('turns.prompt.admit');
    const forward = await eventually(() => named('turns.forward')[0]);
    expect(forward.kind).toBe(SpanKind.CLIENT);
    expect(forward.attributes).toMatchObject({
      'turns.session_id': sessionId,
      'turns.owner_node': 'node-a',
      'http.response.status_code': 202,
    });
    expect(admit!.attributes).toMatchObject({ 'turns.session_id': sessionId, 'turns.prompt_id': promptId });
    // One trace across the two nodes: forward (node-b) → admit (node-a) → execute.
    expect(admit!.spanContext().traceId).toBe(forward.spanContext().traceId);
    expect(parentOf(admit!)).toBe(forward.spanContext().spanId);
    expect(parentOf(execute)).toBe(admit!.spanContext().spanId);
    expect(execute.attributes).toMatchObject({ 'turns.prompt_id': promptId, 'turns.state': 'completed' });
  });

  it('a poll is a span with state and source; a forwarded poll continues the trace of the forwarding span', async () => {
    const { sessionId } = await a.createSession({ sessionScope: 'thread' });
    const promptId = await a.prompt(sessionId, 'x');
    (await a.engine.nextTurn()).finish();
    await a.http.get(`/session/${sessionId}/turns/${promptId}?waitMs=5000`).expect(200);
    exporter.reset();

    await a.http.get(`/session/${sessionId}/turns/${promptId}`).expect(200);
    const [local] = await eventually(() => (named('turns.poll').length ? named('turns.poll') : undefined));
    expect(local!.attributes).toMatchObject({ 'turns.state': 'completed', 'turns.source': 'memory', 'turns.prompt_id': promptId });
    expect(parentOf(local!)).toBeUndefined();
    exporter.reset();

    await b.http.get(`/session/${sessionId}/turns/current`).expect(200);
    const forward = await eventually(() => named('turns.forward')[0]);
    const [remote] = named('turns.poll');
    expect(remote!.attributes).toMatchObject({ 'turns.state': 'completed', 'turns.prompt_id': 'current' });
    expect(remote!.spanContext().traceId).toBe(forward.spanContext().traceId);
    expect(parentOf(remote!)).toBe(forward.spanContext().spanId);
  });

  it('a poll that reads the transcript records how many records it scanned, and a 404 marks the span failed', async () => {
    const { sessionId } = await a.createSession({ sessionScope: 'thread' });
    const promptId = await a.prompt(sessionId, 'x');
    (await a.engine.nextTurn()).finish();
    await a.http.get(`/session/${sessionId}/turns/${promptId}?waitMs=5000`).expect(200);
    exporter.reset();
    await a.http.get(`/session/${sessionId}/turns/${randomUUID()}`).expect(404);
    const [poll] = await eventually(() => (named('turns.poll').length ? named('turns.poll') : undefined));
    expect(poll!.attributes).toMatchObject({ 'turns.source': 'not_found', 'turns.records_scanned': expect.any(Number) });
    expect(poll!.attributes['turns.records_scanned']).toBeGreaterThan(0);
    expect(poll!.status.code).toBe(2);
  });
});

/**
 * `@opentelemetry/api` is in every install (prom-client depends on it): the
 * daemon loads it only when asked, or when a tracer provider was registered
 * before it started. (prom-client itself requires it with the metrics on, for
 * its CPU counter's exemplars; that starts no span.)
 */
describe('a daemon process loads @opentelemetry/api only when asked for', () => {
  jest.setTimeout(180_000);
  const FIXTURES = join(__dirname, 'fixtures');
  let dist: string;
  let dataDir: string;
  beforeAll(() => {
    dist = compileSources('tracing');
    dataDir = tempDir();
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  /** Starts the daemon, stops it; whether the API was loaded, and what its start line says of tracing. */
  async function run(env: NodeJS.ProcessEnv, preload = ''): Promise<{ loaded: boolean; tracing: string | undefined }> {
    const report = join(dataDir, `report-${randomUUID()}.json`);
    const daemon = await startDaemonProcess(join(dist, 'daemon', 'bin.js'), {
      TURNS_DATA_DIR: dataDir,
      TURNS_WORKSPACES: dataDir,
      REPORT_FILE: report,
      NODE_OPTIONS: `--require ${join(FIXTURES, 'report-opentelemetry-api.cjs')} ${preload}`,
      ...env,
    });
    daemon.child.kill('SIGTERM');
    await daemon.exited;
    const tracing = daemon.output.map((line) => /tracing (\w+)/.exec(line)?.[1]).find(Boolean);
    return { ...(JSON.parse(readFileSync(report, 'utf8')) as { loaded: boolean }), tracing };
  }

  it('not asked (and metrics off, so prom-client is not loaded either): not loaded', async () => {
    expect(await run({ TURNS_METRICS: 'false' })).toEqual({ loaded: false, tracing: 'off' });
  });

  it('not asked, metrics on (the default): tracing off', async () => {
    expect(await run({})).toMatchObject({ tracing: 'off' });
  });

  it('with TURNS_TRACING=true: loaded', async () => {
    expect(await run({ TURNS_METRICS: 'false', TURNS_TRACING: 'true' })).toEqual({ loaded: true, tracing: 'opentelemetry' });
  });

  it('with a tracer provider registered before start: tracing on', async () => {
    const preload = `--import ${join(FIXTURES, 'register-tracer-provider.mjs')}`;
    expect(await run({ TURNS_METRICS: 'false' }, preload)).toEqual({ loaded: true, tracing: 'opentelemetry' });
  });
});
