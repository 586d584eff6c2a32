import { settle } from './support/deferred.js';
import { pollTurn } from './support/poll.js';
import { openSocket, readResponses, readUntilClosed } from './support/raw-http.js';
import { ADAPTERS, startDaemon, type TestDaemon } from './support/test-daemon.js';

// The edges a fuzzing run of the daemon found (issue 17), on both adapters.

describe.each(ADAPTERS)('a memory-only result outlives other clients reading old prompts (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startDaemon({ httpAdapter, maxPendingPrompts: 200 });
  });
  afterAll(() => daemon.close(true));

  it('answers B, removed while queued, after the 80 oldest of 100 prompts are polled; published ones keep queuedAt', async () => {
    const { sessionId, clientId } = await daemon.createSession();
    const turn = (promptId: string) => daemon.http.get(`/session/${sessionId}/turns/${promptId}`).set('X-Qwen-Client-Id', clientId);
    const old: string[] = [];
    for (let i = 0; i < 100; i += 1) old.push(await daemon.prompt(sessionId, `p${i}`, clientId));
    const a = await daemon.prompt(sessionId, 'A', clientId);
    const b = await daemon.prompt(sessionId, 'B', clientId);
    for (let i = 0; i < 100; i += 1) (await daemon.engine.nextTurn()).finish();
    const running = await daemon.engine.nextTurn(); // A
    const removed = await daemon.http.delete(`/session/${sessionId}/pending-prompts/${b}`).set('X-Qwen-Client-Id', clientId);
    expect(removed.body).toEqual({ removed: true });
    running.finish();
    expect((await pollTurn(daemon, sessionId, a)).state).toBe('completed');

    for (const promptId of old.slice(0, 80)) expect((await turn(promptId).expect(200)).body.state).toBe('completed');

    const answer = await turn(b);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ state: 'cancelled', promptId: b, queuedAt: expect.any(Number) });
    // The 62 newest of the 100 were still published when the polls began: read back, they keep queuedAt.
    for (const promptId of old.slice(38)) expect((await turn(promptId).expect(200)).body.queuedAt).toEqual(expect.any(Number));
  });
});

/** The first frame of a session's event stream, read with the given headers. */
async function firstFrame(url: string, headers: Record<string, string>): Promise<string> {
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal });
  const reader = res.body!.getReader();
  let text = '';
  while (!/\S\n\n/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
  controller.abort();
  return text.trimStart().split('\n\n')[0]!;
}

describe.each(ADAPTERS)('protocol details (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startDaemon({ httpAdapter, token: 't0ken' });
  });
  afterAll(() => daemon.close(true));
  const auth = { Authorization: 'Bearer t0ken' };

  it('names the Bearer scheme on every 401 (RFC 6750)', async () => {
    for (const path of ['/capabilities', '/session/x/turns/current', '/docs-json', '/docs/']) {
      const res = await daemon.http.get(path).set('Authorization', 'Bearer wrong');
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.body).toEqual({ error: 'Unauthorized', code: 'unauthorized' });
    }
    expect((await daemon.http.post('/session').send({})).headers['www-authenticate']).toBe('Bearer');
  });

  it('treats a Last-Event-ID that is not a safe integer as absent', async () => {
    const { body } = await daemon.http.post('/session').set(auth).send({}).expect(200);
    const url = `${daemon.url}/session/${body.sessionId}/events`;
    const plain = await firstFrame(url, auth);
    expect(plain).toMatch(/^retry: 3000\nid: \d+$|^id: \d+\nretry: 3000$/);
    for (const header of ['9'.repeat(400), '9'.repeat(20), '1.5', '-3']) {
      expect(await firstFrame(url, { ...auth, 'Last-Event-ID': header })).toBe(plain);
    }
    expect(await firstFrame(url, { ...auth, 'Last-Event-ID': '0' })).toMatch(/id: 0(\n|$)/);
  });

  it('refuses a lone surrogate with 400 invalid_request naming the field', async () => {
    const { body } = await daemon.http.post('/session').set(auth).send({}).expect(200);
    const post = (json: string) =>
      daemon.http.post(`/session/${body.sessionId}/prompt`).set(auth).set('Content-Type', 'application/json').send(json);
    const res = await post('{"prompt":[{"type":"text","text":"ok"},{"type":"text","text":"a\\ud800"}]}');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'prompt.1.text: contains a lone UTF-16 surrogate', code: 'invalid_request' });
    expect((await post('{"prompt":[{"type":"text","text":"\\ud83d\\ude00"}]}')).status).toBe(202);
  });
});

describe.each(ADAPTERS)('slow clients are cut on time (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startDaemon({ httpAdapter, headersTimeoutMs: 1_000, requestTimeoutMs: 2_000, maxBodyBytes: 64 * 1024 });
  });
  afterAll(() => daemon.close(true));

  // Generous bounds: the point is that the cut comes from the setting, not from Node's 30 s check.
  it('cuts a client that sends half a header after TURNS_HEADERS_TIMEOUT_MS (1 s), well before 3 s', async () => {
    const socket = await openSocket(daemon.url);
    socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const { closed, data, afterMs } = await readUntilClosed(socket, 5_000);
    expect(closed).toBe(true);
    expect(afterMs).toBeLessThan(3_000);
    expect(data).toMatch(/^HTTP\/1\.1 408/);
  });

  it('cuts a client that sends half a body after TURNS_REQUEST_TIMEOUT_MS (2 s), well before 4 s', async () => {
    const socket = await openSocket(daemon.url);
    socket.write('POST /session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"');
    const { closed, afterMs } = await readUntilClosed(socket, 6_000);
    expect(closed).toBe(true);
    expect(afterMs).toBeLessThan(4_000);
  });

  it('answers a declared Content-Length over the body limit with 413 at once, without waiting for the body', async () => {
    const socket = await openSocket(daemon.url);
    socket.write('POST /session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n{"');
    const { closed, data, afterMs } = await readUntilClosed(socket, 5_000);
    expect(closed).toBe(true);
    expect(afterMs).toBeLessThan(1_500); // the request time-out is 2 s
    expect(data).toMatch(/^HTTP\/1\.1 413/);
    expect(JSON.parse(data.slice(data.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'Request body too large', code: 'payload_too_large' });
  });
});

describe.each(ADAPTERS)('both adapters answer alike (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  let session: { sessionId: string; clientId: string };
  beforeAll(async () => {
    daemon = await startDaemon({ httpAdapter });
    session = await daemon.createSession();
  });
  afterAll(() => daemon.close(true));

  it('strips __proto__ and constructor.prototype keys, keeping the connection for what is pipelined behind', async () => {
    const socket = await openSocket(daemon.url);
    const body = `{"__proto__":{"admin":true},"prompt":[{"type":"text","text":"hi","constructor":{"prototype":{"x":1}}}]}`;
    socket.write(
      `POST /session/${session.sessionId}/prompt HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
        'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
    );
    const [admitted, health] = await readResponses(socket, 2);
    socket.destroy();
    expect(admitted!.status).toBe(202);
    expect(admitted!.headers.connection).not.toBe('close');
    expect(health!.status).toBe(200);
    const turn = await daemon.engine.nextTurn();
    expect(turn.request.prompt).toEqual([{ type: 'text', text: 'hi' }]);
    turn.finish();
  });

  it.each([
    ['QUERY', '/health', 405, 'GET, HEAD, OPTIONS'],
    ['DELETE', '/health', 405, 'GET, HEAD, OPTIONS'],
    ['PUT', '/session/:id/turns/current', 405, 'GET, HEAD, OPTIONS'],
    ['GET', '/session/:id/prompt', 405, 'OPTIONS, POST'],
    ['PATCH', '/session/:id', 405, 'DELETE, OPTIONS'],
    ['QUERY', '/nope', 404, undefined],
    ['OPTIONS', '/nope', 404, undefined],
  ])('answers %s %s with %d and Allow %s, as JSON', async (method, path, status, allow) => {
    const res = await fetch(`${daemon.url}${path.replace(':id', session.sessionId)}`, { method });
    expect(res.status).toBe(status);
    expect(res.headers.get('allow') ?? undefined).toBe(allow);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(
      status === 405
        ? { error: 'Method not allowed on this path; see Allow', code: 'method_not_allowed' }
        : { error: 'Not found', code: 'not_found' },
    );
  });

  it('answers a plain OPTIONS on a route with 204 and Allow', async () => {
    for (const [path, allow] of [
      ['/session/:id/turns/current', 'GET, HEAD, OPTIONS'],
      ['/session/:id/turns/some-prompt', 'GET, HEAD, OPTIONS'],
      ['/session/:id/pending-prompts/p', 'DELETE, OPTIONS'],
      ['/session', 'OPTIONS, POST'],
    ]) {
      const res = await fetch(`${daemon.url}${path!.replace(':id', session.sessionId)}`, { method: 'OPTIONS' });
      expect(res.status).toBe(204);
      expect(res.headers.get('allow')).toBe(allow);
      expect(await res.text()).toBe('');
    }
  });

  it('answers HEAD where GET is answered', async () => {
    const res = await fetch(`${daemon.url}/health`, { method: 'HEAD' });
    expect(res.status).toBe(200);
  });
});

describe.each(ADAPTERS)('requests pipelined on one connection (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startDaemon({ httpAdapter });
  });
  afterAll(() => daemon.close(true));

  it('are answered as if they ran in order: reads sent before a POST do not see it', async () => {
    const { sessionId } = await daemon.createSession({ sessionScope: 'thread' });
    const socket = await openSocket(daemon.url);
    const body = '{"prompt":[{"type":"text","text":"later"}]}';
    socket.write(
      `GET /session/${sessionId}/turns/current HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n` +
        `GET /session/${sessionId}/pending-prompts HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n` +
        `POST /session/${sessionId}/prompt HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
        `GET /session/${sessionId}/pending-prompts HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
    );
    const [current, pendingBefore, admitted, pendingAfter] = await readResponses(socket, 4);
    socket.destroy();
    expect(JSON.parse(current!.body)).toEqual({ sessionId, state: 'idle' });
    expect(JSON.parse(pendingBefore!.body)).toEqual({ pendingPrompts: [] });
    expect(admitted!.status).toBe(202);
    const { promptId } = JSON.parse(admitted!.body);
    expect(JSON.parse(pendingAfter!.body).pendingPrompts).toEqual([expect.objectContaining({ promptId, text: 'later' })]);
    (await daemon.engine.nextTurn()).finish();
  });

  it('start one at a time: a request behind a held one waits for its answer', async () => {
    const { sessionId } = await daemon.createSession({ sessionScope: 'thread' });
    const promptId = await daemon.prompt(sessionId, 'held');
    const turn = await daemon.engine.nextTurn();
    expect(turn.request.prompt).toEqual([{ type: 'text', text: 'held' }]);
    const socket = await openSocket(daemon.url);
    socket.write(
      `GET /session/${sessionId}/turns/${promptId}?waitMs=10000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n` +
        `DELETE /session/${sessionId} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
    );
    const answers = readResponses(socket, 2);
    await settle(20);
    // The DELETE has not run: the session is still live and its prompt still running.
    expect((await daemon.http.get(`/session/${sessionId}/turns/${promptId}`).expect(200)).body.state).toBe('running');
    turn.say('done');
    turn.finish();
    const [held, closed] = await answers;
    socket.destroy();
    expect(JSON.parse(held!.body)).toMatchObject({ state: 'completed', resultText: 'done' });
    expect(closed!.status).toBe(204);
  });
});
