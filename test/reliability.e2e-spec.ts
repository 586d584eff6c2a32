import { randomUUID } from 'node:crypto';
import type { Test } from 'supertest';
import { appendFileSync } from 'node:fs';
import { ChatRecordingService } from '../src/transcript/chat-recording.service.js';
import { EchoEngine } from '../src/engines/echo.engine.js';
import { waitForTurn } from './support/poll.js';
import { raw } from './support/raw-http.js';
import { ADAPTERS, startDaemon, tempDir, type TestDaemon } from './support/test-daemon.js';
import { writeLargeTranscript } from './support/transcript-generator.js';

const deep = (depth: number) => `{"prompt":${'['.repeat(depth)}${']'.repeat(depth)}}`;

describe.each(ADAPTERS)('hostile input gets a clear 4xx and harms no other session (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  let canary: { sessionId: string; clientId: string };
  let victim: { sessionId: string; clientId: string };

  beforeAll(async () => {
    daemon = await startDaemon(
      { httpAdapter, maxBodyBytes: 64 * 1024, maxPromptChars: 1_000, maxSessions: 4, maxSseStreamsPerSession: 1 },
      { engine: new EchoEngine(0) },
    );
    canary = await daemon.createSession({ sessionScope: 'thread' });
    victim = await daemon.createSession({ sessionScope: 'thread' });
  });
  afterAll(() => daemon.close(true));

  afterEach(async () => {
    const res = await daemon.http.get(`/session/${canary.sessionId}/turns/current`).set('X-Qwen-Client-Id', canary.clientId);
    expect(res.status).toBe(200);
  });

  const json = (
    method: 'post' | 'get' | 'delete' | 'put' | 'options' | 'query',
    path: () => string,
    body?: string,
    type = 'application/json',
  ) => ({
    method,
    path,
    body,
    type,
  });
  const cases: Array<[string, ReturnType<typeof json>, number, string]> = [
    ['deeply nested prompt', json('post', () => `/session/${victim.sessionId}/prompt`, deep(1_313)), 400, 'invalid_json'],
    ['deeply nested session body', json('post', () => '/session', `{"cwd":${'['.repeat(1_313)}${']'.repeat(1_313)}}`), 400, 'invalid_json'],
    [
      'deeply nested rewind',
      json('post', () => `/session/${victim.sessionId}/rewind`, `{"promptId":${'['.repeat(500)}${']'.repeat(500)}}`),
      400,
      'invalid_json',
    ],
    ['array of arrays prompt', json('post', () => `/session/${victim.sessionId}/prompt`, '{"prompt":[[]]}'), 400, 'invalid_request'],
    ['malformed JSON', json('post', () => `/session/${victim.sessionId}/prompt`, '{"prompt":'), 400, 'invalid_json'],
    [
      'body over the limit',
      json('post', () => `/session/${victim.sessionId}/prompt`, JSON.stringify({ prompt: [{ type: 'text', text: 'x'.repeat(70_000) }] })),
      413,
      'payload_too_large',
    ],
    [
      'prompt over the limit',
      json('post', () => `/session/${victim.sessionId}/prompt`, JSON.stringify({ prompt: [{ type: 'text', text: 'x'.repeat(1_001) }] })),
      413,
      'prompt_too_large',
    ],
    ['null body', json('post', () => `/session/${victim.sessionId}/prompt`, 'null'), 400, 'invalid_request'],
    ['string body', json('post', () => `/session/${victim.sessionId}/prompt`, '"hi"'), 400, 'invalid_request'],
    ['string prompt', json('post', () => `/session/${victim.sessionId}/prompt`, '{"prompt":"hi"}'), 400, 'invalid_request'],
    [
      'unknown block type',
      json('post', () => `/session/${victim.sessionId}/prompt`, '{"prompt":[{"type":"exec"}]}'),
      400,
      'invalid_request',
    ],
    [
      'negative deadline',
      json('post', () => `/session/${victim.sessionId}/prompt`, '{"prompt":[{"type":"text","text":"x"}],"deadlineMs":-1}'),
      400,
      'invalid_deadline_ms',
    ],
    ['rewind without promptId', json('post', () => `/session/${victim.sessionId}/rewind`, '{}'), 400, 'invalid_request'],
    ['path-like session id', json('get', () => '/session/..%2F..%2Fetc%2Fpasswd/turns/current'), 404, 'session_not_found'],
    ['very long session id', json('get', () => `/session/${'a'.repeat(2_000)}/turns/current`), 404, ''],
    ['very long prompt id', json('get', () => `/session/${victim.sessionId}/turns/${'p'.repeat(5_000)}`), 404, ''],
    ['unknown route', json('get', () => '/nope'), 404, 'not_found'],
    // Bodies are JSON only, on both adapters alike (the browser walls, docs/security.md).
    ['text/plain body', json('post', () => `/session/${victim.sessionId}/prompt`, 'hello', 'text/plain'), 415, 'unsupported_media_type'],
    ['form-encoded body', json('post', () => '/session', 'a=b', 'application/x-www-form-urlencoded'), 415, 'unsupported_media_type'],
    ['foreign client id', json('get', () => `/session/${victim.sessionId}/turns/current`), 400, 'invalid_client_id'],
    // Found by fuzzing (issue 17): the same answer on both adapters.
    [
      '__proto__ key in a prompt (stripped)',
      json('post', () => `/session/${victim.sessionId}/prompt`, '{"__proto__":{"x":1},"prompt":[{"type":"text","text":"p"}]}'),
      202,
      '',
    ],
    [
      'constructor.prototype in a session body (stripped)',
      json('post', () => '/session', '{"constructor":{"prototype":{"x":1}}}'),
      200,
      '',
    ],
    ['null session body', json('post', () => '/session', 'null'), 400, 'invalid_request'],
    ['unknown method on a route', json('query', () => '/health'), 405, 'method_not_allowed'],
    ['method a route does not answer', json('put', () => `/session/${victim.sessionId}/prompt`), 405, 'method_not_allowed'],
    ['unknown method on an unknown path', json('query', () => '/nope'), 404, 'not_found'],
    ['plain OPTIONS on a turn route', json('options', () => `/session/${victim.sessionId}/turns/current`), 204, ''],
    [
      'lone surrogate in a prompt',
      json('post', () => `/session/${victim.sessionId}/prompt`, '{"prompt":[{"type":"text","text":"\\ud800"}]}'),
      400,
      'invalid_request',
    ],
    ['empty cwd', json('post', () => '/session', '{"cwd":""}'), 400, 'invalid_request'],
    ['null cwd', json('post', () => '/session', '{"cwd":null}'), 400, 'invalid_request'],
    [
      'null deadline',
      json('post', () => `/session/${victim.sessionId}/prompt`, '{"prompt":[{"type":"text","text":"x"}],"deadlineMs":null}'),
      400,
      'invalid_deadline_ms',
    ],
    [
      'fractional deadline',
      json('post', () => `/session/${victim.sessionId}/prompt`, '{"prompt":[{"type":"text","text":"x"}],"deadlineMs":1.5}'),
      400,
      'invalid_deadline_ms',
    ],
    [
      'null mimeType',
      json('post', () => `/session/${victim.sessionId}/prompt`, '{"prompt":[{"type":"image","data":"AA==","mimeType":null}]}'),
      400,
      'invalid_request',
    ],
    [
      'text block without text',
      json('post', () => `/session/${victim.sessionId}/prompt`, '{"prompt":[{"type":"text"}]}'),
      400,
      'invalid_request',
    ],
    ['null block', json('post', () => `/session/${victim.sessionId}/prompt`, '{"prompt":[null]}'), 400, 'invalid_request'],
    ['waitMs over maxWaitMs', json('get', () => `/session/${victim.sessionId}/turns/current?waitMs=300000`), 400, 'invalid_wait_ms'],
  ];

  it.each(cases)('%s', async (_name, request, status, code) => {
    // supertest types no QUERY method, though it sends one.
    const agent = daemon.http as unknown as Record<typeof request.method, (path: string) => Test>;
    const req = agent[request.method](request.path()).set('Content-Type', request.type);
    if (_name === 'foreign client id') req.set('X-Qwen-Client-Id', canary.clientId);
    const res = await (request.body === undefined ? req : req.send(request.body));
    expect(res.status).toBe(status);
    if (res.status >= 400)
      expect(res.body).toEqual(expect.objectContaining({ error: expect.any(String), code: code || expect.any(String) }));
    else expect(res.body.code).toBeUndefined();
  });

  it('answers a malformed URL encoding in our shape, without echoing the URL', async () => {
    const answer = await raw(daemon.url, 'GET /session/%E0%A4%A/turns/current HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 4\d\d/);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4).replace(/^[0-9a-f]+\r\n|\r\n0\r\n\r\n$/g, ''));
    expect(body).toEqual(expect.objectContaining({ code: expect.any(String), error: expect.any(String) }));
    expect(answer).not.toContain('%E0%A4%A');
  });

  it('answers oversized headers with 431 and a JSON body', async () => {
    const answer = await raw(daemon.url, `GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431/);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
      error: 'Request header fields too large',
      code: 'request_header_fields_too_large',
    });
  });

  it('bounds live sessions and SSE streams with 503s', async () => {
    await daemon.createSession({ sessionScope: 'thread' });
    await daemon.createSession({ sessionScope: 'thread' });
    const full = await daemon.http.post('/session').send({ sessionScope: 'thread' }).expect(503);
    expect(full.body).toEqual({ error: 'Too many live sessions', code: 'too_many_sessions', limit: 4 });
    expect(full.headers['retry-after']).toBe('1');
    const first = new AbortController();
    const stream = await fetch(`${daemon.url}/session/${victim.sessionId}/events`, { signal: first.signal });
    expect(stream.status).toBe(200);
    const second = await fetch(`${daemon.url}/session/${victim.sessionId}/events`);
    expect(second.status).toBe(503);
    expect(await second.json()).toMatchObject({ code: 'too_many_streams' });
    first.abort();
    // The slot is released when the client goes away.
    for (let i = 0; i < 100; i += 1) {
      const again = await fetch(`${daemon.url}/session/${victim.sessionId}/events`, { signal: AbortSignal.timeout(2_000) }).catch(
        () => undefined,
      );
      if (again?.status === 200) {
        await again.body?.cancel();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('the SSE slot was never released');
  });

  it('accepts the bearer scheme in any case', async () => {
    const guarded = await startDaemon({ httpAdapter, token: 't0ken' });
    try {
      await guarded.http.get('/capabilities').set('Authorization', 'bearer t0ken').expect(200);
      await guarded.http.get('/capabilities').set('Authorization', 'BEARER t0ken').expect(200);
      await guarded.http.get('/capabilities').set('Authorization', 'Basic t0ken').expect(401);
    } finally {
      await guarded.close(true);
    }
  });
});

describe.each(ADAPTERS)('transcripts that crashes and hostile files left behind (%s)', (httpAdapter) => {
  it('finds every turn after a torn final line, a restart and a load', async () => {
    const dataDir = tempDir();
    const config = { httpAdapter, dataDir, workspaces: [dataDir] };
    const first = await startDaemon(config, { engine: new EchoEngine(0) });
    const { sessionId, clientId } = await first.createSession();
    const a = await first.prompt(sessionId, 'one', clientId);
    await waitForTurn(first, sessionId, a, 10_000, 5);
    const path = first.app.get(ChatRecordingService).pathOf(sessionId)!;
    await first.close();
    appendFileSync(path, '{"uuid":"torn-by-a-crash","parentUu'); // the process died mid-append

    const second = await startDaemon(config, { engine: new EchoEngine(0) });
    try {
      const loaded = await second.http.post(`/session/${sessionId}/load`).expect(200);
      const b = await second.prompt(sessionId, 'two', loaded.body.clientId);
      expect(await waitForTurn(second, sessionId, b, 10_000, 5)).toMatchObject({ state: 'completed', resultText: 'echo: two' });
    } finally {
      await second.close();
    }
    const third = await startDaemon(config, { engine: new EchoEngine(0) });
    try {
      await third.http.post(`/session/${sessionId}/load`).expect(200);
      const turn = (promptId: string) => third.http.get(`/session/${sessionId}/turns/${promptId}`).expect(200);
      expect((await turn(a)).body).toMatchObject({ state: 'completed', resultText: 'echo: one' });
      expect((await third.http.get(`/session/${sessionId}/turns/current`).expect(200)).body).toMatchObject({ resultText: 'echo: two' });
    } finally {
      await third.close(true);
    }
  });

  it('refuses to load, rewind or fork a transcript over the bound with 413, and keeps serving other sessions', async () => {
    const dataDir = tempDir();
    const daemon = await startDaemon(
      { httpAdapter, dataDir, workspaces: [dataDir], maxTranscriptBytes: 200_000 },
      { engine: new EchoEngine(0) },
    );
    try {
      const other = await daemon.createSession({ sessionScope: 'thread' });
      const sessionId = randomUUID();
      writeLargeTranscript(daemon.app.get(ChatRecordingService).transcriptPath(dataDir, sessionId), sessionId, 10, 30_000);
      const res = await daemon.http.post(`/session/${sessionId}/load`).expect(413);
      expect(res.body).toMatchObject({ code: 'transcript_too_large', sessionId, maxBytes: 200_000 });
      await daemon.http.get(`/session/${other.sessionId}/turns/current`).expect(200);

      const live = await daemon.createSession({ sessionScope: 'thread' });
      const promptId = await daemon.prompt(live.sessionId, 'x'.repeat(500), live.clientId);
      await waitForTurn(daemon, live.sessionId, promptId, 10_000, 5);
      const path = daemon.app.get(ChatRecordingService).pathOf(live.sessionId)!;
      appendFileSync(path, `${JSON.stringify({ uuid: randomUUID(), parentUuid: null, type: 'assistant', filler: 'y'.repeat(250_000) })}\n`);
      await daemon.http.post(`/session/${live.sessionId}/rewind`).send({ promptId }).expect(413);
      await daemon.http.post(`/session/${live.sessionId}/fork`).expect(413);
      await daemon.http.get(`/session/${other.sessionId}/turns/current`).expect(200);
    } finally {
      await daemon.close(true);
    }
  });
});
