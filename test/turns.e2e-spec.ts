import { randomUUID } from 'node:crypto';
import { TranscriptScanService } from '../src/turns/transcript-scan.service.js';
import { ADAPTERS, startDaemon, type TestDaemon } from './support/test-daemon.js';
import { settle } from './support/deferred.js';

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  // Bounded by count, not time: each round lets pending I/O finish.
  for (let i = 0; i < 200; i += 1) {
    const value = await read();
    if (done(value)) return value;
    await settle();
  }
  throw new Error('condition never held');
}

describe.each(ADAPTERS)('turn status routes (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  let sessionId: string;
  let clientId: string;

  beforeEach(async () => {
    daemon = await startDaemon({ httpAdapter, maxPendingPrompts: 5 });
    ({ sessionId, clientId } = await daemon.createSession());
  });
  afterEach(() => daemon.close(true));

  const turn = (promptId: string) => daemon.http.get(`/session/${sessionId}/turns/${promptId}`);
  const current = () => daemon.http.get(`/session/${sessionId}/turns/current`);
  const settledTurn = (promptId: string) =>
    until(
      async () => (await turn(promptId)).body,
      (b) => !['queued', 'running'].includes(b.state),
    );

  it('answers idle for a session that never had a turn', async () => {
    const res = await current().expect(200);
    expect(res.body).toEqual({ sessionId, state: 'idle' });
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it('reports queued (no startedAt) and running (startedAt) with a poll hint', async () => {
    const first = await daemon.prompt(sessionId, 'first', clientId);
    const second = await daemon.prompt(sessionId, 'second');
    await daemon.engine.nextTurn();
    // The originator reads its own id (its request carries it); anyone else the pseudonym.
    const running = await turn(first).set('X-Qwen-Client-Id', clientId).expect(200);
    expect((await turn(first)).body.originatorClientId).toMatch(/^~/);
    expect(running.body).toEqual({
      sessionId,
      state: 'running',
      promptId: first,
      promptText: 'first',
      queuedAt: expect.any(Number),
      startedAt: expect.any(Number),
      originatorClientId: clientId,
    });
    expect(running.headers['retry-after']).toBe('1');
    const queued = await turn(second).expect(200);
    expect(queued.body).toEqual({ sessionId, state: 'queued', promptId: second, promptText: 'second', queuedAt: expect.any(Number) });
    expect((await current()).body).toMatchObject({ state: 'running', promptId: first });
  });

  it('reports completed with the final answer only, for the exact route and current', async () => {
    const promptId = await daemon.prompt(sessionId, 'question');
    const t = await daemon.engine.nextTurn();
    t.emit({ kind: 'thought', text: 'pondering' });
    t.say('Let me check. ');
    t.emit({ kind: 'tool_call', toolCallId: 'c1', title: 'read_file' });
    t.emit({ kind: 'tool_call_update', toolCallId: 'c1', status: 'completed', output: 'file contents' });
    t.say('The answer ');
    t.say('is 42.');
    t.finish('end_turn');
    const body = await settledTurn(promptId);
    expect(body).toEqual({
      sessionId,
      state: 'completed',
      promptId,
      promptText: 'question',
      queuedAt: expect.any(Number),
      startedAt: expect.any(Number),
      endedAt: expect.any(Number),
      stopReason: 'end_turn',
      resultText: 'The answer is 42.',
    });
    expect(body.endedAt).toBeGreaterThanOrEqual(body.startedAt);
    expect(body.startedAt).toBeGreaterThanOrEqual(body.queuedAt);
    expect((await current()).body).toEqual(body);
  });

  it('reports an engine error with its code, and the session stays usable', async () => {
    const failed = await daemon.prompt(sessionId, 'boom');
    (await daemon.engine.nextTurn()).fail(Object.assign(new Error('Internal error'), { code: -32603 }));
    const body = await settledTurn(failed);
    expect(body).toMatchObject({ state: 'error', error: { message: 'Internal error', code: '-32603' } });
    expect(body).not.toHaveProperty('resultText');
    const next = await daemon.prompt(sessionId, 'again');
    (await daemon.engine.nextTurn()).finish();
    expect(await settledTurn(next)).toMatchObject({ state: 'completed' });
  });

  it('reports a cancelled queued prompt without startedAt, and a cancelled running one with it', async () => {
    const running = await daemon.prompt(sessionId, 'one');
    const queued = await daemon.prompt(sessionId, 'two');
    const t = await daemon.engine.nextTurn();
    await daemon.http.delete(`/session/${sessionId}/pending-prompts/${queued}`).expect(200, { removed: true });
    const cancelledQueued = (await turn(queued).expect(200)).body;
    expect(cancelledQueued).toEqual({
      sessionId,
      state: 'cancelled',
      promptId: queued,
      promptText: 'two',
      queuedAt: expect.any(Number),
      endedAt: expect.any(Number),
      stopReason: 'cancelled',
    });

    await daemon.http.delete(`/session/${sessionId}/pending-prompts/${running}`).expect(200, { removed: true });
    expect(t.request.signal.aborted).toBe(true);
    const cancelledRunning = await settledTurn(running);
    expect(cancelledRunning).toMatchObject({ state: 'cancelled', stopReason: 'cancelled', startedAt: expect.any(Number) });
  });

  it('keeps a removed running prompt running until the Session settles it', async () => {
    daemon.engine.honorAbort = false;
    const running = await daemon.prompt(sessionId, 'stubborn');
    const t = await daemon.engine.nextTurn();
    await daemon.http.delete(`/session/${sessionId}/pending-prompts/${running}`).expect(200, { removed: true });
    expect(t.request.signal.aborted).toBe(true);
    await settle();
    expect((await turn(running)).body).toMatchObject({ state: 'running', startedAt: expect.any(Number) });
    expect((await current()).body).toMatchObject({ state: 'running', promptId: running });
    t.say('partial');
    t.finish('cancelled');
    expect(await settledTurn(running)).toMatchObject({ state: 'cancelled', stopReason: 'cancelled', resultText: 'partial' });
  });

  it('truncates promptText and resultText at 32,768 code units with flags, and keeps exactly 32,768', async () => {
    const long = 'p'.repeat(40_000);
    const cut = await daemon.prompt(sessionId, long);
    const t1 = await daemon.engine.nextTurn();
    t1.say('r'.repeat(32_768) + '\u{1F600}');
    t1.finish();
    const body = await settledTurn(cut);
    expect(body.promptText).toHaveLength(32_768);
    expect(body.promptTextTruncated).toBe(true);
    expect(body.resultText).toHaveLength(32_768);
    expect(body).toMatchObject({ resultTruncated: true, resultCode: 'RESULT_TEXT_TRUNCATED' });

    const exact = await daemon.prompt(sessionId, 'q'.repeat(32_768));
    const t2 = await daemon.engine.nextTurn();
    t2.say('s'.repeat(32_768));
    t2.finish();
    const whole = await settledTurn(exact);
    expect(whole.resultText).toHaveLength(32_768);
    expect(whole.promptText).toHaveLength(32_768);
    for (const flag of ['promptTextTruncated', 'resultTruncated', 'resultCode']) expect(whole).not.toHaveProperty(flag);
  });

  it('never answers null fields and uses epoch-ms numbers', async () => {
    const promptId = await daemon.prompt(sessionId, 'x');
    (await daemon.engine.nextTurn()).finish();
    const body = await settledTurn(promptId);
    expect(Object.values(body)).not.toContain(null);
    for (const key of ['queuedAt', 'startedAt', 'endedAt']) expect(Number.isInteger(body[key])).toBe(true);
  });

  it('answers 404 prompt_not_found for an unknown prompt', async () => {
    const promptId = randomUUID();
    const res = await turn(promptId).expect(404);
    expect(res.body).toEqual({ error: expect.any(String), code: 'prompt_not_found', sessionId, promptId });
    const weird = await turn('not-a-uuid').expect(404);
    expect(weird.body.code).toBe('prompt_not_found');
  });

  it('answers 404 session_not_found for unknown sessions, UUID or not, and never loads one', async () => {
    for (const id of [randomUUID(), 'nope', '..%2F..%2Fetc']) {
      const res = await daemon.http.get(`/session/${id}/turns/current`).expect(404);
      expect(res.body).toMatchObject({ code: 'session_not_found' });
      await daemon.http.get(`/session/${id}/turns/${randomUUID()}`).expect(404);
    }
  });

  it('supports ETag / If-None-Match', async () => {
    const promptId = await daemon.prompt(sessionId, 'x');
    (await daemon.engine.nextTurn()).finish();
    await settledTurn(promptId);
    const first = await turn(promptId).expect(200);
    const etag = first.headers.etag;
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await turn(promptId).set('If-None-Match', etag).expect(304);
    expect(again.text ?? '').toBe('');
    await turn(promptId).set('If-None-Match', '"other"').expect(200);
  });

  it('finds the 65th-oldest prompt from the transcript after it left the overlay', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 65; i += 1) {
      const promptId = await daemon.prompt(sessionId, `prompt ${i}`);
      const t = await daemon.engine.nextTurn();
      t.say(`answer ${i}`);
      t.finish();
      ids.push(promptId);
      await until(
        async () => (await turn(promptId)).body.state,
        (s) => s === 'completed',
      );
    }
    const oldest = (await turn(ids[0]!).expect(200)).body;
    expect(oldest).toEqual({
      sessionId,
      state: 'completed',
      promptId: ids[0],
      promptText: 'prompt 0',
      startedAt: expect.any(Number),
      endedAt: expect.any(Number),
      stopReason: 'end_turn',
      resultText: 'answer 0',
    });
    expect(oldest).not.toHaveProperty('queuedAt'); // persisted-only shape
    expect((await turn(ids[64]!)).body).toHaveProperty('queuedAt');
  }, 60_000);

  it('serves steady-state polls of a settled session from memory, without scanning', async () => {
    const promptId = await daemon.prompt(sessionId, 'x');
    (await daemon.engine.nextTurn()).finish();
    await settledTurn(promptId);
    await current().expect(200);
    const scan = daemon.app.get(TranscriptScanService);
    const exact = jest.spyOn(scan, 'findTurnResult');
    const newest = jest.spyOn(scan, 'findNewestTurnResult');
    for (let i = 0; i < 5; i += 1) {
      expect((await current().expect(200)).body).toMatchObject({ promptId, state: 'completed' });
      expect((await turn(promptId).expect(200)).body).toMatchObject({ state: 'completed' });
    }
    expect(exact).not.toHaveBeenCalled();
    expect(newest).not.toHaveBeenCalled();
  });

  it('reports current as the newest settled prompt after a turn', async () => {
    const a = await daemon.prompt(sessionId, 'a');
    (await daemon.engine.nextTurn()).finish();
    await settledTurn(a);
    const b = await daemon.prompt(sessionId, 'b');
    (await daemon.engine.nextTurn()).finish();
    await settledTurn(b);
    expect((await current()).body).toMatchObject({ promptId: b, state: 'completed' });
  });
});
