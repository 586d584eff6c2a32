import { randomUUID } from 'node:crypto';
import { HAS_PROMTOOL, promtoolCheck, sampleValue, seriesOf } from './support/prometheus.js';
import { ADAPTERS, startDaemon, type TestDaemon } from './support/test-daemon.js';
import { eventually } from './support/eventually.js';
import { TURNS_CHANNELS } from '../src/telemetry/turns-channels.js';

const TOKEN = 'metrics-secret';
const auth = { Authorization: `Bearer ${TOKEN}` };

describe.each(ADAPTERS)('GET /metrics (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  const scrape = async () => (await daemon.http.get('/metrics').set(auth).expect(200)).text;
  const post = (path: string, body: object = {}) => daemon.http.post(path).set(auth).send(body);

  beforeEach(async () => {
    daemon = await startDaemon({ httpAdapter, token: TOKEN });
  });
  afterEach(() => daemon.close(true));

  it('is behind the token and answers the Prometheus text format', async () => {
    await daemon.http.get('/metrics').expect(401, { error: 'Unauthorized', code: 'unauthorized' });
    const res = await daemon.http.get('/metrics').set(auth).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.text).toMatch(/^# HELP turns_http_request_duration_seconds /m);
    expect(res.text).toMatch(/^process_resident_memory_bytes \d+/m);
    // prom-client's misnamed gauges are gone; their by-type twins stay.
    expect(res.text).not.toMatch(/nodejs_active_handles_total/);
    expect(res.text).toMatch(/^# TYPE nodejs_active_handles gauge/m);
  });

  (HAS_PROMTOOL ? it : it.skip)('passes `promtool check metrics` with nothing to fix, after every kind of series has samples', async () => {
    const { sessionId } = (await post('/session', { sessionScope: 'thread' }).expect(200)).body;
    const promptId = (await post(`/session/${sessionId}/prompt`, { prompt: [{ type: 'text', text: 'x' }] }).expect(202)).body.promptId;
    (await daemon.engine.nextTurn()).finish();
    await daemon.http.get(`/session/${sessionId}/turns/${promptId}?waitMs=5000`).set(auth).expect(200);
    await daemon.http.get(`/session/${sessionId}/turns/${randomUUID()}`).set(auth).expect(404);
    const check = promtoolCheck(await scrape());
    expect(check).toEqual({ status: 0, output: '' });
  });

  it('counts prompts admitted and settled, polls by source, and held waiters as the routes are used', async () => {
    const before = await scrape();
    const { sessionId } = (await post('/session', { sessionScope: 'thread' }).expect(200)).body;
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1)
      ids.push((await post(`/session/${sessionId}/prompt`, { prompt: [{ type: 'text', text: `p${i}` }] }).expect(202)).body.promptId);
    const first = await daemon.engine.nextTurn();
    // A held wait on the running prompt: the waiters gauge reads 1 while it is held.
    const held = daemon.http
      .get(`/session/${sessionId}/turns/${ids[0]}?waitMs=20000`)
      .set(auth)
      .then((r) => r);
    await eventually(async () => (sampleValue(await scrape(), 'turns_waiters') === 1 ? true : undefined));
    first.finish();
    expect((await held).body.state).toBe('completed');
    (await daemon.engine.nextTurn()).finish();
    (await daemon.engine.nextTurn()).finish();
    await daemon.http.get(`/session/${sessionId}/turns/${ids[2]}?waitMs=5000`).set(auth).expect(200);
    await daemon.http.get(`/session/${sessionId}/turns/${ids[1]}`).set(auth).expect(200);
    await daemon.http.get(`/session/${sessionId}/turns/${randomUUID()}`).set(auth).expect(404);
    const etag = (await daemon.http.get(`/session/${sessionId}/turns/${ids[1]}`).set(auth).expect(200)).headers.etag as string;
    await daemon.http.get(`/session/${sessionId}/turns/${ids[1]}`).set(auth).set('If-None-Match', etag).expect(304);
    const after = await scrape();
    const delta = (name: string, labels?: Record<string, string>) => sampleValue(after, name, labels) - sampleValue(before, name, labels);
    expect(delta('turns_prompts_admitted_total')).toBe(3);
    expect(delta('turns_prompts_withdrawn_total')).toBe(0);
    expect(delta('turns_prompts_settled_total', { state: 'completed' })).toBe(3);
    expect(delta('turns_prompts_settled_total', { state: 'error' })).toBe(0);
    expect(delta('turns_turn_polls_total', { source: 'not_found' })).toBe(1);
    expect(delta('turns_turn_polls_total', { source: 'not_modified' })).toBe(1);
    // Four polls answered 200: the one held on a running prompt and the one that read the ETag came from memory;
    // a first look at a settled prompt may have read the transcript.
    expect(delta('turns_turn_polls_total', { source: 'memory' }) + delta('turns_turn_polls_total', { source: 'scan' })).toBe(4);
    expect(delta('turns_turn_polls_total', { source: 'memory' })).toBeGreaterThanOrEqual(2);
    expect(delta('turns_prompt_queue_wait_seconds_count')).toBe(3);
    expect(delta('turns_prompt_run_duration_seconds_count')).toBe(3);
    expect(sampleValue(after, 'turns_waiters')).toBe(0);
    expect(sampleValue(after, 'turns_sessions_live')).toBe(1);
    expect(sampleValue(after, 'turns_prompts', { state: 'running' })).toBe(0);
    // HTTP by route template: the poll route is one series whatever the ids.
    expect(
      sampleValue(after, 'turns_http_request_duration_seconds_count', {
        method: 'GET',
        route: '/session/:id/turns/:promptId',
        status: '404',
      }),
    ).toBe(1);
    expect(
      sampleValue(after, 'turns_http_request_duration_seconds_count', { method: 'POST', route: '/session/:id/prompt', status: '202' }),
    ).toBe(3);
    expect(after).not.toContain(sessionId);
  });

  it('labels a request by the route the front door matched: one refused before routing too, alike on both adapters', async () => {
    const { sessionId } = (await post('/session', { sessionScope: 'thread' }).expect(200)).body;
    await daemon.http.post(`/session/${sessionId}/prompt`).set(auth).set('content-type', 'application/json').send('{"prompt":').expect(400);
    await daemon.http.get('/no/such/route').set(auth).expect(404);
    const after = await scrape();
    const count = (labels: Record<string, string>) => sampleValue(after, 'turns_http_request_duration_seconds_count', labels);
    expect(count({ method: 'POST', route: '/session/:id/prompt', status: '400' })).toBe(1);
    expect(count({ method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
  });

  it('counts an admission withdrawn unacknowledged (503) on its own counter', async () => {
    const before = sampleValue(await scrape(), 'turns_prompts_withdrawn_total');
    TURNS_CHANNELS.promptWithdrawn.publish({ sessionId: randomUUID() });
    expect(sampleValue(await scrape(), 'turns_prompts_withdrawn_total') - before).toBe(1);
  });

  it('a scan that misses is timed and its bytes counted', async () => {
    const { sessionId } = (await post('/session', { sessionScope: 'thread' }).expect(200)).body;
    const promptId = (await post(`/session/${sessionId}/prompt`, { prompt: [{ type: 'text', text: 'x' }] }).expect(202)).body.promptId;
    (await daemon.engine.nextTurn()).finish();
    await daemon.http.get(`/session/${sessionId}/turns/${promptId}?waitMs=5000`).set(auth).expect(200);
    const before = await scrape();
    await daemon.http.get(`/session/${sessionId}/turns/${randomUUID()}`).set(auth).expect(404);
    const after = await scrape();
    expect(
      sampleValue(after, 'turns_transcript_scan_duration_seconds_count') -
        sampleValue(before, 'turns_transcript_scan_duration_seconds_count'),
    ).toBe(1);
    expect(sampleValue(after, 'turns_transcript_scan_read_bytes_total')).toBeGreaterThan(
      sampleValue(before, 'turns_transcript_scan_read_bytes_total'),
    );
  });

  it('keeps its series bounded: 10,000 distinct promptIds and 1,000 unknown paths add none', async () => {
    const { sessionId } = (await post('/session', { sessionScope: 'thread' }).expect(200)).body;
    // fetch keeps its connections alive: 11,000 requests in seconds, where a connection each would take minutes.
    const status = async (path: string) => (await fetch(`${daemon.url}${path}`, { headers: auth })).status;
    const poll = async () => expect(await status(`/session/${sessionId}/turns/${randomUUID()}`)).toBe(404);
    const stray = async () => expect(await status(`/nothing/${randomUUID()}`)).toBe(404);
    await poll();
    await stray();
    await scrape(); // the scrape's own series
    // The daemon's own series (Node's default metrics may gain a series for a GC kind first seen meanwhile).
    const ours = async () => seriesOf(await scrape()).filter((series) => series.startsWith('turns_'));
    const before = new Set(await ours());
    for (let i = 0; i < 200; i += 1) await Promise.all(Array.from({ length: 55 }, (_, j) => (j % 11 === 0 ? stray() : poll())));
    const after = await ours();
    expect(after.length).toBeGreaterThan(20);
    expect(after.filter((series) => !before.has(series))).toEqual([]);
    expect(after.join('\n')).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
  }, 120_000);
});

describe.each(ADAPTERS)('TURNS_METRICS_PORT (%s)', (httpAdapter) => {
  it('serves /metrics on a listener of its own, with the same token, and not on the API port', async () => {
    const daemon = await startDaemon({ httpAdapter, token: TOKEN, metricsPort: 0 });
    try {
      await daemon.http.get('/metrics').set(auth).expect(404);
      const server = daemon.app.get((await import('../src/metrics/metrics-server.js')).MetricsServer);
      const url = server.url!;
      expect((await fetch(url)).status).toBe(401);
      const res = await fetch(url, { headers: auth });
      expect(res.status).toBe(200);
      expect(await res.text()).toMatch(/^turns_sessions_live 0$/m);
      expect((await fetch(url.replace('/metrics', '/other'), { headers: auth })).status).toBe(404);
      // The browser walls stand in front of it as of the API's port.
      expect((await fetch(url, { headers: { ...auth, origin: 'http://evil.example' } })).status).toBe(403);
    } finally {
      await daemon.close(true);
    }
  });

  it('TURNS_METRICS=false: no /metrics at all', async () => {
    const daemon = await startDaemon({ httpAdapter, metrics: false });
    try {
      await daemon.http.get('/metrics').expect(404);
    } finally {
      await daemon.close(true);
    }
  });
});
