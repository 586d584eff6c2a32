import { Controller, Get, Param, UseGuards, type INestApplication } from '@nestjs/common';
import request from 'supertest';
import { ClientIdGuard } from '../src/index.js';
import { createTurnsTestingApp, type InMemoryBridgeOverlay, type InMemoryTranscriptScan } from '../src/testing/index.js';
import { waitForTurn } from './support/poll.js';
import { ADAPTERS, startDaemon, type TestDaemon } from './support/test-daemon.js';

/** A host route of its own, behind the exported guard. */
@Controller('host/:id')
class HostController {
  @Get()
  @UseGuards(ClientIdGuard)
  ping(@Param('id') id: string) {
    return { id };
  }
}

/** What a host's supertest e2e does with `nest-turn-status/testing`, on both platforms. */
describe.each(ADAPTERS)('the testing kit drives TurnsModule step by step (%s)', (adapter) => {
  let app: INestApplication;
  let bridge: InMemoryBridgeOverlay;
  let transcript: InMemoryTranscriptScan;
  const http = () => request(app.getHttpServer());

  beforeEach(async () => {
    ({ app, bridge, transcript } = await createTurnsTestingApp({ adapter, controllers: [HostController] }));
    bridge.addSession('s1', { clientIds: ['c1'] });
  });
  afterEach(() => app.close());

  it('walks a prompt through queued → running → completed, as the routes answer it', async () => {
    await http().get('/session/s1/turns/current').expect(200, { sessionId: 's1', state: 'idle' });
    const promptId = bridge.admit('s1', 'hello', { originatorClientId: 'c1' });
    expect((await http().get(`/session/s1/turns/${promptId}`).set('X-Qwen-Client-Id', 'c1').expect(200)).body).toMatchObject({
      state: 'queued',
      promptText: 'hello',
      originatorClientId: 'c1',
    });
    // Anyone else reads the client's pseudonym, never its id.
    expect((await http().get(`/session/s1/turns/${promptId}`).expect(200)).body.originatorClientId).toMatch(/^~/);
    bridge.start('s1');
    expect((await http().get('/session/s1/turns/current').expect(200)).body).toMatchObject({ state: 'running', promptId });
    bridge.complete('s1', { resultText: 'hi there' });
    const done = await http().get(`/session/s1/turns/${promptId}`).expect(200);
    expect(done.body).toMatchObject({ state: 'completed', promptId, resultText: 'hi there', stopReason: 'end_turn' });
    expect(done.body).toEqual(
      expect.objectContaining({ queuedAt: expect.any(Number), startedAt: expect.any(Number), endedAt: expect.any(Number) }),
    );
    await http().get(`/session/s1/turns/${promptId}`).set('If-None-Match', done.headers.etag).expect(304);
  });

  it('holds a waiting request until the step the test takes', async () => {
    const promptId = bridge.admit('s1', 'wait for me');
    const held = http()
      .get(`/session/s1/turns/${promptId}?waitMs=20000`)
      .then((res) => res);
    for (let i = 0; i < 200 && bridge.watching('s1') === 0; i += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(bridge.watching('s1')).toBe(1);
    bridge.start('s1');
    bridge.complete('s1', { resultText: 'done' });
    expect((await held).body).toMatchObject({ state: 'completed', resultText: 'done' });
    expect(bridge.watching('s1')).toBe(0);
  });

  it('removal, deadlines and close answer as the reference runtime does', async () => {
    const running = bridge.admit('s1', 'first');
    const queued = bridge.admit('s1', 'second');
    const late = bridge.admit('s1', 'third');
    bridge.start('s1');
    bridge.remove('s1', queued);
    const removed = (await http().get(`/session/s1/turns/${queued}`).expect(200)).body;
    expect(removed).toMatchObject({ state: 'cancelled' });
    expect(removed.startedAt).toBeUndefined();
    bridge.expire('s1', running);
    expect((await http().get(`/session/s1/turns/${running}`).expect(200)).body).toMatchObject({
      state: 'error',
      error: { code: 'prompt_deadline_exceeded' },
    });
    // First writer wins: the agent settling after the deadline changes nothing in memory.
    bridge.complete('s1', { promptId: running, resultText: 'too late' });
    expect((await http().get(`/session/s1/turns/${running}`).expect(200)).body.state).toBe('error');
    bridge.closeSession('s1');
    await http().get(`/session/s1/turns/${late}`).expect(404, { error: 'Session not found', code: 'session_not_found', sessionId: 's1' });
  });

  it('answers from the transcript side, then from memory; injected failures come out structured', async () => {
    transcript.record({ sessionId: 's1', state: 'completed', promptId: 'old', endedAt: 5, resultText: 'from disk', queuedAt: 1 });
    const first = await http().get('/session/s1/turns/old').expect(200);
    expect(first.body).toEqual({ sessionId: 's1', state: 'completed', promptId: 'old', endedAt: 5, resultText: 'from disk' });
    await http().get('/session/s1/turns/old').expect(200);
    expect(transcript.scans).toBe(1); // the second poll came from memory
    await http().get('/session/s1/turns/nope').expect(404);
    transcript.failWith('s1', 'transcript_snapshot_unavailable');
    const failed = await http().get('/session/s1/turns/other').expect(409);
    expect(failed.body).toEqual({
      error: 'Transcript changed or became unreadable during the scan',
      code: 'transcript_snapshot_unavailable',
      sessionId: 's1',
    });
  });

  it("guards the host's own routes with the client ids the test registered", async () => {
    await http().get('/host/s1').set('X-Qwen-Client-Id', 'c1').expect(200, { id: 's1' });
    expect((await http().get('/host/s1').set('X-Qwen-Client-Id', 'c2').expect(400)).body.code).toBe('invalid_client_id');
    bridge.registerClient('s1', 'c2');
    await http().get('/host/s1').set('X-Qwen-Client-Id', 'c2').expect(200);
    expect((await http().get('/host/nobody').expect(404)).body.code).toBe('session_not_found');
  });

  it("shows the agent's request for approval on the running turn and wakes a held poll, until the test answers it", async () => {
    const promptId = bridge.admit('s1', 'tidy the build');
    bridge.start('s1');
    const running = await http().get(`/session/s1/turns/${promptId}`).expect(200);
    const held = http()
      .get(`/session/s1/turns/${promptId}?waitMs=20000`)
      .set('If-None-Match', running.headers.etag!)
      .then((res) => res);
    for (let i = 0; i < 200 && bridge.watching('s1') === 0; i += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(bridge.watching('s1')).toBe(1);
    const { requestId, answered } = bridge.askPermission('s1', { type: 'execute', title: 'rm -rf build' });
    const woken = await held;
    expect(woken.status).toBe(200);
    expect(woken.headers.etag).not.toBe(running.headers.etag);
    expect(woken.body).toMatchObject({
      state: 'running',
      pendingInteractions: [
        { requestId, kind: 'permission', action: { title: 'rm -rf build' }, options: [{ kind: 'allow_once' }, { kind: 'reject_once' }] },
      ],
    });
    expect(bridge.answerPermission('s1', requestId, { outcome: 'selected', optionId: 'allow_once' })).toBe(true);
    await expect(answered).resolves.toEqual({ outcome: 'selected', optionId: 'allow_once' });
    const after = await http().get(`/session/s1/turns/${promptId}`).set('If-None-Match', woken.headers.etag!).expect(200);
    expect(after.body.pendingInteractions).toBeUndefined();
    expect(after.body.state).toBe('running');
  });
});

/** A host's approval flow over the reference runtime, with the scripted engine in place of an agent (docs/permissions.md). */
describe.each(ADAPTERS)('the scripted engine asks approval through the runtime (%s)', (adapter) => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startDaemon({ httpAdapter: adapter });
  });
  afterAll(() => daemon.close(true));

  it('holds the request on the running turn until a client answers over REST; the turn gets the answer', async () => {
    const { sessionId, clientId } = await daemon.createSession();
    const promptId = await daemon.prompt(sessionId, 'tidy the build', clientId);
    const turn = await daemon.engine.nextTurn();
    const decision = turn.askPermission('rm -rf build');
    // The runtime holds the request as the engine asks: the next poll shows it.
    const [request] = (await daemon.http.get(`/session/${sessionId}/turns/${promptId}`).expect(200)).body.pendingInteractions;
    expect(request).toMatchObject({ kind: 'permission', action: { type: 'execute', title: 'rm -rf build' } });
    await daemon.http
      .post(`/session/${sessionId}/permission/${request.requestId}`)
      .set('X-Qwen-Client-Id', clientId)
      .send({ outcome: { outcome: 'selected', optionId: 'reject_once' } })
      .expect(200, {});
    await expect(decision).resolves.toEqual({ outcome: 'selected', optionId: 'reject_once' });
    turn.say('left it');
    turn.finish();
    expect(await waitForTurn(daemon, sessionId, promptId)).toMatchObject({ state: 'completed', resultText: 'left it' });
  });

  it('a cancel answers the pending request cancelled', async () => {
    const { sessionId } = await daemon.createSession();
    const promptId = await daemon.prompt(sessionId, 'tidy');
    const turn = await daemon.engine.nextTurn();
    const decision = turn.askPermission();
    expect((await daemon.http.get(`/session/${sessionId}/turns/${promptId}`)).body.pendingInteractions).toHaveLength(1);
    await daemon.http.post(`/session/${sessionId}/cancel`).expect(204);
    await expect(decision).resolves.toEqual({ outcome: 'cancelled' });
    expect(await waitForTurn(daemon, sessionId, promptId)).toMatchObject({ state: 'cancelled' });
  });
});
