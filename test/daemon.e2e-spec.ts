import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ADAPTERS, startDaemon, tempDir, type TestDaemon } from './support/test-daemon.js';
import { settle } from './support/deferred.js';

describe.each(ADAPTERS)('daemon routes (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  let other: string;

  beforeEach(async () => {
    const root = tempDir();
    other = join(root, 'other');
    mkdirSync(other);
    daemon = await startDaemon({ httpAdapter, dataDir: root, workspaces: [root, other], maxPendingPrompts: 2 });
  });
  afterEach(() => daemon.close(true));

  it('GET /health and /capabilities', async () => {
    await daemon.http.get('/health').expect(200, { status: 'ok' });
    const caps = await daemon.http.get('/capabilities').expect(200);
    expect(caps.body).toMatchObject({
      v: 1,
      workspaceCwd: daemon.config.workspaces[0],
      limits: { maxPendingPromptsPerSession: 2 },
      workspaces: [
        { cwd: daemon.config.workspaces[0], primary: true },
        { cwd: other, primary: false },
      ],
    });
    expect(caps.body.features).toEqual(expect.arrayContaining(['session_prompt', 'session_turn_status']));
    expect(caps.body.features.every((f: unknown) => typeof f === 'string')).toBe(true);
  });

  it('POST /session creates, attaches with "single", and always creates with "thread"', async () => {
    const first = await daemon.http.post('/session').send({}).expect(200);
    expect(first.body).toMatchObject({ workspaceCwd: daemon.config.workspaces[0], attached: false });
    expect(first.body.clientId).toMatch(/^client_[0-9a-f-]{36}$/);
    expect(new Date(first.body.createdAt).toISOString()).toBe(first.body.createdAt);
    const attached = await daemon.http.post('/session').send({ sessionScope: 'single' }).expect(200);
    expect(attached.body).toMatchObject({ sessionId: first.body.sessionId, attached: true });
    expect(attached.body.clientId).not.toBe(first.body.clientId);
    const thread = await daemon.http.post('/session').send({ sessionScope: 'thread' }).expect(200);
    expect(thread.body.sessionId).not.toBe(first.body.sessionId);
    const inOther = await daemon.http.post('/session').send({ cwd: other }).expect(200);
    expect(inOther.body).toMatchObject({ workspaceCwd: other, attached: false });
  });

  it('POST /session refuses an unregistered cwd and a non-UUID sessionId', async () => {
    const mismatch = await daemon.http.post('/session').send({ cwd: '/definitely/not/registered' }).expect(400);
    expect(mismatch.body).toMatchObject({ code: 'workspace_mismatch' });
    await daemon.http.post('/session').send({ cwd: '.' }).expect(400);
    const trailing = await daemon.http
      .post('/session')
      .send({ cwd: `${other}/` })
      .expect(200);
    expect(trailing.body.workspaceCwd).toBe(other);
    const bad = await daemon.http.post('/session').send({ sessionId: '../../etc/passwd' }).expect(400);
    expect(bad.body).toMatchObject({ code: 'invalid_session_id' });
    const id = randomUUID();
    const chosen = await daemon.http.post('/session').send({ sessionId: id }).expect(200);
    expect(chosen.body.sessionId).toBe(id);
    await daemon.http.post('/session').send({ sessionScope: 'bogus' }).expect(400);
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await daemon.http.get('/no/such/route').expect(404);
    expect(res.headers['content-type']).toMatch(/json/);
    expect(res.body).toMatchObject({ code: 'not_found' });
  });

  it('admits a prompt with 202 {promptId, lastEventId, eventEpoch}', async () => {
    const { sessionId } = await daemon.createSession();
    const res = await daemon.http
      .post(`/session/${sessionId}/prompt`)
      .send({ prompt: [{ type: 'text', text: 'hi' }] })
      .expect(202);
    expect(res.body).toEqual({
      promptId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      lastEventId: expect.any(Number),
      eventEpoch: expect.any(String),
    });
  });

  it('rejects bad prompt bodies with structured 400s', async () => {
    const { sessionId } = await daemon.createSession();
    const post = (body: unknown) =>
      daemon.http
        .post(`/session/${sessionId}/prompt`)
        .set('content-type', 'application/json')
        .send(body as object);
    for (const body of [{}, { prompt: [] }, { prompt: 'text' }, { prompt: [{ type: 'video' }] }, { prompt: [{ type: 'text' }] }]) {
      const res = await post(body).expect(400);
      expect(res.body).toMatchObject({ code: 'invalid_request', error: expect.any(String) });
    }
    const malformed = await post('{"prompt": [').expect(400);
    expect(malformed.body).toMatchObject({ code: 'invalid_json' });
    for (const deadlineMs of [0, -5, 1.5, 'soon']) {
      const res = await post({ prompt: [{ type: 'text', text: 'x' }], deadlineMs }).expect(400);
      expect(res.body).toMatchObject({ code: 'invalid_deadline_ms' });
    }
    // Nothing was admitted by any of the rejected requests.
    expect((await daemon.http.get(`/session/${sessionId}/pending-prompts`).expect(200)).body).toEqual({ pendingPrompts: [] });
  });

  it('answers 503 prompt_queue_full with Retry-After at the limit (running included)', async () => {
    const { sessionId } = await daemon.createSession();
    await daemon.prompt(sessionId, 'one');
    await daemon.prompt(sessionId, 'two');
    const res = await daemon.http
      .post(`/session/${sessionId}/prompt`)
      .send({ prompt: [{ type: 'text', text: 'three' }] })
      .expect(503);
    expect(res.body).toEqual({ error: expect.any(String), code: 'prompt_queue_full', sessionId, limit: 2, pendingCount: 2 });
    expect(res.headers['retry-after']).toBeDefined();
  });

  it('lists pending prompts, running first, with originatorClientId (its own id to the originator)', async () => {
    const { sessionId, clientId } = await daemon.createSession();
    const first = await daemon.prompt(sessionId, 'one', clientId);
    const second = await daemon.prompt(sessionId, 'two');
    const anonymous = await daemon.http.get(`/session/${sessionId}/pending-prompts`).expect(200);
    expect(anonymous.body.pendingPrompts[0].originatorClientId).toMatch(/^~/);
    const res = await daemon.http.get(`/session/${sessionId}/pending-prompts`).set('X-Qwen-Client-Id', clientId).expect(200);
    expect(res.body.pendingPrompts).toEqual([
      { promptId: first, text: 'one', queuedAt: expect.any(Number), state: 'running', originatorClientId: clientId },
      { promptId: second, text: 'two', queuedAt: expect.any(Number), state: 'queued' },
    ]);
  });

  it('removes queued prompts at once, running ones cooperatively, and unknown ones not at all', async () => {
    const { sessionId } = await daemon.createSession();
    const running = await daemon.prompt(sessionId, 'one');
    const queued = await daemon.prompt(sessionId, 'two');
    const turn = await daemon.engine.nextTurn();
    await daemon.http.delete(`/session/${sessionId}/pending-prompts/${queued}`).expect(200, { removed: true });
    await daemon.http.delete(`/session/${sessionId}/pending-prompts/${queued}`).expect(200, { removed: false });
    await daemon.http.delete(`/session/${sessionId}/pending-prompts/${randomUUID()}`).expect(200, { removed: false });
    await daemon.http.delete(`/session/${sessionId}/pending-prompts/${running}`).expect(200, { removed: true });
    expect(turn.request.signal.aborted).toBe(true);
    await daemon.http.delete(`/session/${sessionId}/pending-prompts/${running}`).expect(200, { removed: false });
  });

  it('POST /cancel is 204 when idle and cancels only the running prompt', async () => {
    const { sessionId } = await daemon.createSession();
    await daemon.http.post(`/session/${sessionId}/cancel`).expect(204);
    await daemon.prompt(sessionId, 'one');
    const second = await daemon.prompt(sessionId, 'two');
    const first = await daemon.engine.nextTurn();
    await daemon.http.post(`/session/${sessionId}/cancel`).expect(204);
    expect(first.request.signal.aborted).toBe(true);
    const next = await daemon.engine.nextTurn();
    expect(next.request.prompt).toEqual([{ type: 'text', text: 'two' }]);
    const pending = await daemon.http.get(`/session/${sessionId}/pending-prompts`).expect(200);
    expect(pending.body.pendingPrompts).toEqual([expect.objectContaining({ promptId: second, state: 'running' })]);
  });

  it('DELETE /session closes it; its routes then answer 404 session_not_found', async () => {
    const { sessionId } = await daemon.createSession();
    await daemon.prompt(sessionId, 'one');
    await daemon.http.delete(`/session/${sessionId}`).expect(204);
    for (const path of [`/session/${sessionId}/pending-prompts`, `/session/${sessionId}/turns/current`]) {
      const res = await daemon.http.get(path).expect(404);
      expect(res.body).toEqual({ error: expect.any(String), code: 'session_not_found', sessionId });
    }
    await daemon.http.delete(`/session/${sessionId}`).expect(404);
    await daemon.http
      .post(`/session/${sessionId}/prompt`)
      .send({ prompt: [{ type: 'text', text: 'x' }] })
      .expect(404);
  });

  it('checks client ids in order: session 404, format 400, registration 400', async () => {
    const a = await daemon.createSession();
    const b = await daemon.createSession({ sessionScope: 'thread' });
    const unknown = randomUUID();
    const prompt = { prompt: [{ type: 'text', text: 'x' }] };
    // Session lookup comes first, even with a malformed id and a bad body.
    const missing = await daemon.http.post(`/session/${unknown}/prompt`).set('X-Qwen-Client-Id', 'bad id!').send({}).expect(404);
    expect(missing.body).toMatchObject({ code: 'session_not_found', sessionId: unknown });
    // Format before registration, and before body validation.
    const malformed = await daemon.http.post(`/session/${a.sessionId}/prompt`).set('X-Qwen-Client-Id', 'bad id!').send({}).expect(400);
    expect(malformed.body).toEqual({ error: expect.any(String), code: 'invalid_client_id' });
    const tooLong = await daemon.http
      .post(`/session/${a.sessionId}/prompt`)
      .set('X-Qwen-Client-Id', 'x'.repeat(129))
      .send(prompt)
      .expect(400);
    expect(tooLong.body.code).toBe('invalid_client_id');
    // Well formed but registered on another session.
    const foreign = await daemon.http.post(`/session/${a.sessionId}/prompt`).set('X-Qwen-Client-Id', b.clientId).send({}).expect(400);
    expect(foreign.body).toEqual({ error: expect.any(String), code: 'invalid_client_id', sessionId: a.sessionId, clientId: b.clientId });
    // Registered and anonymous clients are admitted.
    await daemon.http.post(`/session/${a.sessionId}/prompt`).set('X-Qwen-Client-Id', a.clientId).send(prompt).expect(202);
    await daemon.http.post(`/session/${a.sessionId}/prompt`).set('X-Qwen-Client-Id', '').send(prompt).expect(202);
    // The same guard protects the turn routes.
    const turns = await daemon.http.get(`/session/${a.sessionId}/turns/current`).set('X-Qwen-Client-Id', b.clientId).expect(400);
    expect(turns.body).toMatchObject({ code: 'invalid_client_id', sessionId: a.sessionId, clientId: b.clientId });
  });

  it('serves the OpenAPI document of every route', async () => {
    const doc = (await daemon.http.get('/docs-json').expect(200)).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/health',
        '/capabilities',
        '/session',
        '/session/{id}/load',
        '/session/{id}/prompt',
        '/session/{id}/pending-prompts',
        '/session/{id}/pending-prompts/{promptId}',
        '/session/{id}/cancel',
        '/session/{id}/rewind',
        '/session/{id}/fork',
        '/session/{id}/resume',
        '/session/{id}/branch',
        '/session/{id}/status',
        '/session/{id}/heartbeat',
        '/session/{id}/detach',
        '/session/{id}/rewind/snapshots',
        '/session/{id}',
        '/session/{id}/events',
        '/session/{id}/turns/current',
        '/session/{id}/turns/{promptId}',
      ]),
    );
    expect(doc.components.schemas.CompletedTurnStatusDto.properties.resultText.maxLength).toBe(32768);
    await daemon.http.get('/docs').expect(200);
    await settle();
  });
});

describe.each(ADAPTERS)('bearer token (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startDaemon({ httpAdapter, token: 's3cret-token' });
  });
  afterAll(() => daemon.close(true));

  it('leaves /health open and answers 401 identically for missing, malformed and wrong tokens', async () => {
    await daemon.http.get('/health').expect(200);
    const answers = await Promise.all(
      [undefined, 'Basic abc', 'Bearer', 'Bearer wrong', 'Bearer s3cret-token-but-longer'].map((auth) => {
        const req = daemon.http.get('/capabilities');
        if (auth) req.set('Authorization', auth);
        return req.expect(401);
      }),
    );
    for (const res of answers) expect(res.body).toEqual({ error: 'Unauthorized', code: 'unauthorized' });
    await daemon.http.get('/capabilities').set('Authorization', 'Bearer s3cret-token').expect(200);
    await daemon.http.get('/no/such/route').set('Authorization', 'Bearer s3cret-token').expect(404);
  });
});
