import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ChatRecordingService } from '../src/transcript/chat-recording.service.js';
import { deferred, settle } from './support/deferred.js';
import { pollTurn, waitForTurn } from './support/poll.js';
import { ADAPTERS, startDaemon, tempDir, type TestDaemon } from './support/test-daemon.js';

async function completeTurn(daemon: TestDaemon, sessionId: string, text: string): Promise<string> {
  const promptId = await daemon.prompt(sessionId, text);
  const t = await daemon.engine.nextTurn();
  t.say(`answer to ${text}`);
  t.finish();
  await pollTurn(daemon, sessionId, promptId);
  return promptId;
}

describe.each(ADAPTERS)('restart, rewind, fork and deadlines (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  let dataDir: string;

  beforeEach(async () => {
    dataDir = tempDir();
    daemon = await startDaemon({ httpAdapter, dataDir });
  });
  afterEach(() => daemon.close(true));

  it('finds earlier results after a restart once the session is loaded again', async () => {
    const { sessionId } = await daemon.createSession();
    const first = await completeTurn(daemon, sessionId, 'one');
    const second = await completeTurn(daemon, sessionId, 'two');
    await daemon.close();

    daemon = await startDaemon({ httpAdapter, dataDir });
    // Not live yet: turn routes never load or resume a session.
    const before = await daemon.http.get(`/session/${sessionId}/turns/${first}`).expect(404);
    expect(before.body).toEqual({ error: expect.any(String), code: 'session_not_found', sessionId });

    const loaded = await daemon.http.post(`/session/${sessionId}/load`).expect(200);
    expect(loaded.body).toEqual({
      sessionId,
      workspaceCwd: dataDir,
      attached: false,
      clientId: expect.stringMatching(/^client_/),
      createdAt: expect.any(String),
      state: {},
      hasActivePrompt: false,
      hasRunningBackgroundTasks: false,
      lastEventId: 0,
      eventEpoch: expect.any(String),
      promptTerminals: [
        { v: 1, promptId: first, terminal: 'completed', stopReason: 'end_turn', at: expect.any(Number) },
        { v: 1, promptId: second, terminal: 'completed', stopReason: 'end_turn', at: expect.any(Number) },
      ],
    });
    // The prompt ledger's terminals, oldest first (docs/ledger.md).
    const found = (await daemon.http.get(`/session/${sessionId}/turns/${first}`).expect(200)).body;
    expect(found).toEqual({
      sessionId,
      state: 'completed',
      promptId: first,
      promptText: 'one',
      startedAt: expect.any(Number),
      endedAt: expect.any(Number),
      stopReason: 'end_turn',
      resultText: 'answer to one',
    });
    expect((await daemon.http.get(`/session/${sessionId}/turns/current`).expect(200)).body).toMatchObject({
      promptId: second,
      resultText: 'answer to two',
    });
    // The loaded session keeps recording on the same chain.
    const third = await completeTurn(daemon, sessionId, 'three');
    expect((await daemon.http.get(`/session/${sessionId}/turns/current`)).body).toMatchObject({ promptId: third });
    expect((await daemon.http.get(`/session/${sessionId}/turns/${first}`)).body.state).toBe('completed');
  });

  it('starts a session once when it is loaded by concurrent requests', async () => {
    const { sessionId } = await daemon.createSession();
    await completeTurn(daemon, sessionId, 'one');
    await daemon.close();
    daemon = await startDaemon({ httpAdapter, dataDir });
    const [a, b] = await Promise.all([daemon.http.post(`/session/${sessionId}/load`), daemon.http.post(`/session/${sessionId}/load`)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    // Both client ids are registered on the one live session.
    for (const clientId of [a.body.clientId, b.body.clientId]) {
      await daemon.http.get(`/session/${sessionId}/turns/current`).set('X-Qwen-Client-Id', clientId).expect(200);
    }
  });

  it('answers 409 session_busy to a prompt admitted while a rewind is in progress', async () => {
    const { sessionId } = await daemon.createSession();
    const a = await completeTurn(daemon, sessionId, 'a');
    const recorder = daemon.app.get(ChatRecordingService);
    const release = deferred<void>();
    const original = recorder.rewind.bind(recorder);
    jest.spyOn(recorder, 'rewind').mockImplementationOnce(async (...args) => {
      await release.promise;
      return original(...args);
    });
    const rewinding = daemon.http
      .post(`/session/${sessionId}/rewind`)
      .send({ promptId: a })
      .then((res) => res);
    // The rewind request is parked in the recorder once the spy has been reached.
    for (let i = 0; i < 100 && (recorder.rewind as jest.Mock).mock.calls.length === 0; i += 1) await settle();
    const busy = await daemon.http
      .post(`/session/${sessionId}/prompt`)
      .send({ prompt: [{ type: 'text', text: 'x' }] })
      .expect(409);
    expect(busy.body).toMatchObject({ code: 'session_busy', sessionId });
    release.resolve();
    expect((await rewinding).status).toBe(200);
    await daemon.http
      .post(`/session/${sessionId}/prompt`)
      .send({ prompt: [{ type: 'text', text: 'x' }] })
      .expect(202);
  });

  it('answers 404 session_not_found when loading a session without a transcript', async () => {
    for (const id of [randomUUID(), 'not-a-uuid']) {
      const res = await daemon.http.post(`/session/${id}/load`).expect(404);
      expect(res.body).toMatchObject({ code: 'session_not_found', sessionId: id });
    }
  });

  it('rewinds: the target turn and all after it leave the active chain', async () => {
    const { sessionId } = await daemon.createSession();
    const a = await completeTurn(daemon, sessionId, 'a');
    const b = await completeTurn(daemon, sessionId, 'b');
    const c = await completeTurn(daemon, sessionId, 'c');
    await daemon.http
      .post(`/session/${sessionId}/rewind`)
      .send({ promptId: b })
      .expect(200, { rewound: true, targetTurnIndex: 1, filesChanged: [], filesFailed: [] });
    await daemon.http.get(`/session/${sessionId}/turns/${b}`).expect(404);
    await daemon.http.get(`/session/${sessionId}/turns/${c}`).expect(404);
    // The overlay was cleared: a is now read from the transcript (no queuedAt).
    const kept = (await daemon.http.get(`/session/${sessionId}/turns/${a}`).expect(200)).body;
    expect(kept).toMatchObject({ promptId: a, state: 'completed' });
    expect(kept).not.toHaveProperty('queuedAt');
    expect((await daemon.http.get(`/session/${sessionId}/turns/current`)).body).toMatchObject({ promptId: a });
    const d = await completeTurn(daemon, sessionId, 'd');
    expect((await daemon.http.get(`/session/${sessionId}/turns/current`)).body).toMatchObject({ promptId: d });
  });

  it('refuses to rewind while busy (409) or to a prompt off the chain (404), keeping the overlay', async () => {
    const { sessionId } = await daemon.createSession();
    const a = await completeTurn(daemon, sessionId, 'a');
    const running = await daemon.prompt(sessionId, 'busy');
    const busy = await daemon.http.post(`/session/${sessionId}/rewind`).send({ promptId: a }).expect(409);
    expect(busy.body).toMatchObject({ code: 'session_busy', sessionId });
    (await daemon.engine.nextTurn()).finish();
    await pollTurn(daemon, sessionId, running);
    const unknown = randomUUID();
    const missing = await daemon.http.post(`/session/${sessionId}/rewind`).send({ promptId: unknown }).expect(404);
    expect(missing.body).toEqual({ error: expect.any(String), code: 'prompt_not_found', sessionId, promptId: unknown });
    // Failed rewinds kept the overlay: a still has its admission time.
    expect((await daemon.http.get(`/session/${sessionId}/turns/${a}`)).body).toHaveProperty('queuedAt');
    await daemon.http.post(`/session/${sessionId}/rewind`).send({}).expect(400);
  });

  it('forks the active chain into a new live session without prompt identities', async () => {
    const { sessionId, clientId } = await daemon.createSession();
    const a = await completeTurn(daemon, sessionId, 'a');
    const fork = await daemon.http.post(`/session/${sessionId}/fork`).expect(200);
    expect(fork.body).toEqual({ sessionId: expect.any(String), clientId: expect.stringMatching(/^client_/) });
    const forkId = fork.body.sessionId;
    expect(forkId).not.toBe(sessionId);
    await daemon.http.get(`/session/${forkId}/turns/${a}`).expect(404);
    expect((await daemon.http.get(`/session/${forkId}/turns/current`)).body).toEqual({ sessionId: forkId, state: 'idle' });
    await daemon.http.get(`/session/${forkId}/turns/current`).set('X-Qwen-Client-Id', clientId).expect(400);
    await daemon.http.get(`/session/${forkId}/turns/current`).set('X-Qwen-Client-Id', fork.body.clientId).expect(200);
    const file = daemon.app.get(ChatRecordingService).pathOf(forkId)!;
    const records = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records.some((r) => r.subtype === 'turn_result')).toBe(false);
    expect(records.some((r) => r.type === 'user' && r.promptId === a)).toBe(true);
    // The source is untouched, and the fork runs prompts of its own.
    expect((await daemon.http.get(`/session/${sessionId}/turns/${a}`)).body.state).toBe('completed');
    const own = await completeTurn(daemon, forkId, 'forked');
    expect((await daemon.http.get(`/session/${forkId}/turns/current`)).body).toMatchObject({ promptId: own });
  });

  it('closing a session ends its pending prompts, and the transcript keeps what reached it', async () => {
    const { sessionId } = await daemon.createSession();
    const done = await completeTurn(daemon, sessionId, 'done');
    await daemon.prompt(sessionId, 'running');
    await daemon.engine.nextTurn();
    await daemon.http.delete(`/session/${sessionId}`).expect(204);
    await daemon.http.post(`/session/${sessionId}/load`).expect(200);
    expect((await daemon.http.get(`/session/${sessionId}/turns/${done}`)).body).toMatchObject({ state: 'completed' });
  });
});

describe('deadline path over HTTP', () => {
  let daemon: TestDaemon;
  beforeEach(async () => {
    daemon = await startDaemon({ promptDeadlineMs: 60_000 });
  });
  afterEach(() => daemon.close(true));

  it('reads error (prompt_deadline_exceeded) before the agent settles and completed after', async () => {
    const { sessionId } = await daemon.createSession();
    daemon.engine.honorAbort = false;
    // The deadline counts from admission, and the agent gets the prompt only once its ledger record is synced: 20 ms
    // let a slow fsync (a loaded machine) expire it before it ran, and the agent never got it. A second never does.
    const promptId = await daemon.prompt(sessionId, 'long job', undefined, { deadlineMs: 1_000 });
    const t = await daemon.engine.nextTurn();
    // The deadline runs on the clock, so the wait for it is bounded by time, not by a count of polls.
    const expired = await waitForTurn(daemon, sessionId, promptId, 10_000, 20, (state) => state === 'error');
    expect(expired).toMatchObject({ state: 'error', error: { code: 'prompt_deadline_exceeded' }, queuedAt: expect.any(Number) });
    // The FIFO was released: the queue is empty although the agent still works.
    expect((await daemon.http.get(`/session/${sessionId}/pending-prompts`)).body).toEqual({ pendingPrompts: [] });
    t.say('finished late');
    t.finish();
    const after = await pollTurn(daemon, sessionId, promptId, (b) => b.state === 'completed');
    expect(after).toMatchObject({ state: 'completed', resultText: 'finished late', promptText: 'long job', queuedAt: expired.queuedAt });
    expect(after).not.toHaveProperty('error');
  });
});
