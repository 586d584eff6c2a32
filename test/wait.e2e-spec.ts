import { TurnsClient } from '../src/client/turns-client.js';
import { TurnWaitService } from '../src/turns/wait/turn-wait.service.js';
import { settle } from './support/deferred.js';
import { ADAPTERS, startDaemon, type TestDaemon } from './support/test-daemon.js';

describe.each(ADAPTERS)('waiting for a turn (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  let sessionId: string;
  let clientId: string;

  beforeEach(async () => {
    daemon = await startDaemon({ httpAdapter, maxWaiters: 3, maxWaitMs: 60_000 });
    ({ sessionId, clientId } = await daemon.createSession());
  });
  afterEach(() => daemon.close(true));

  const waiting = () => daemon.app.get(TurnWaitService).waiting;
  /** Lets the server take the request in until `count` requests are held (bounded rounds, no sleeps). */
  async function held(count: number): Promise<void> {
    for (let i = 0; i < 500 && waiting() !== count; i += 1) await settle();
    expect(waiting()).toBe(count);
  }
  const turn = (promptId: string, query = '') => daemon.http.get(`/session/${sessionId}/turns/${promptId}${query}`);

  it('holds a queued prompt through running until it completes, and answers what a poll would', async () => {
    const first = await daemon.prompt(sessionId, 'first', clientId);
    const second = await daemon.prompt(sessionId, 'second', clientId);
    const firstTurn = await daemon.engine.nextTurn();
    const answer = turn(second, '?waitMs=60000').then((res) => res);
    await held(1);
    firstTurn.say('one');
    firstTurn.finish();
    const secondTurn = await daemon.engine.nextTurn();
    await held(1); // running is still live: the request stays held
    secondTurn.say('two');
    secondTurn.finish();
    const res = await answer;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'completed', promptId: second, resultText: 'two' });
    expect(res.body).toEqual((await turn(second).expect(200)).body);
    expect(waiting()).toBe(0);
    expect((await turn(first, '?waitMs=60000').expect(200)).body).toMatchObject({ state: 'completed' }); // settled: at once
  });

  it("the client's waitForTurn shows every state on the way: queued → running → completed, one held request per change", async () => {
    await daemon.prompt(sessionId, 'first', clientId);
    const second = await daemon.prompt(sessionId, 'second', clientId);
    const firstTurn = await daemon.engine.nextTurn();
    const client = new TurnsClient({ baseUrl: daemon.url, clientId });
    const seen: string[] = [];
    const settled = client.waitForTurn(sessionId, second, {
      onUpdate: (status) => {
        seen.push(status.state);
        // Each step happens only once the client has seen the one before.
        if (status.state === 'queued') firstTurn.finish();
        if (status.state === 'running') void daemon.engine.nextTurn().then((turn) => (turn.say('two'), turn.finish()));
      },
    });
    const result = await settled;
    expect(seen).toEqual(['queued', 'running', 'completed']);
    expect(result).toMatchObject({ state: 'completed', resultText: 'two' });
    expect(waiting()).toBe(0);
  });

  it('on an idle session promptAndWait shows running → completed: admission starts the prompt, so it is never seen queued', async () => {
    const client = new TurnsClient({ baseUrl: daemon.url, clientId });
    const seen: string[] = [];
    const settled = client.promptAndWait(sessionId, 'alone', {
      onUpdate: (status) => {
        seen.push(status.state);
        if (status.state === 'running') void daemon.engine.nextTurn().then((turn) => (turn.say('done'), turn.finish()));
      },
    });
    await expect(settled).resolves.toMatchObject({ state: 'completed', resultText: 'done' });
    expect(seen).toEqual(['running', 'completed']);
  });

  it('waits on current too, and accepts Prefer: wait with Preference-Applied', async () => {
    const promptId = await daemon.prompt(sessionId, 'p', clientId);
    const running = await daemon.engine.nextTurn();
    const answer = daemon.http
      .get(`/session/${sessionId}/turns/current`)
      .set('Prefer', 'wait=600')
      .then((res) => res);
    await held(1);
    running.finish();
    const res = await answer;
    expect(res.body).toMatchObject({ state: 'completed', promptId });
    expect(res.headers['preference-applied']).toBe('wait=60');
  });

  it('with If-None-Match: 200 when the ETag changes, 304 with the same ETag when the wait runs out', async () => {
    const promptId = await daemon.prompt(sessionId, 'p', clientId);
    const running = await daemon.engine.nextTurn();
    const first = await turn(promptId).expect(200);
    expect(first.body.state).toBe('running');
    const timedOut = await turn(promptId, '?waitMs=50').set('If-None-Match', first.headers.etag!);
    expect(timedOut.status).toBe(304);
    expect(timedOut.headers.etag).toBe(first.headers.etag);
    const changed = turn(promptId, '?waitMs=60000')
      .set('If-None-Match', first.headers.etag!)
      .then((res) => res);
    await held(1);
    running.finish();
    const res = await changed;
    expect(res.status).toBe(200);
    expect(res.body.state).toBe('completed');
    expect(res.headers.etag).not.toBe(first.headers.etag);
  });

  it('answers 404 and 400 at once, and refuses bad waits', async () => {
    await turn('never-admitted', '?waitMs=60000').expect(404);
    for (const bad of ['-1', '1.5', 'x', '60001']) {
      const res = await turn('p', `?waitMs=${bad}`).expect(400);
      expect(res.body).toMatchObject({ code: 'invalid_wait_ms' });
    }
    await daemon.http.get(`/session/${sessionId}/turns/current`).set('Prefer', 'wait=soon').expect(400);
    expect(waiting()).toBe(0);
  });

  it('caps held requests with 503 too_many_waiters', async () => {
    const promptId = await daemon.prompt(sessionId, 'p', clientId);
    const running = await daemon.engine.nextTurn();
    const holds = [1, 2, 3].map(() => turn(promptId, '?waitMs=60000').then((res) => res));
    await held(3);
    const refused = await turn(promptId, '?waitMs=60000').expect(503);
    expect(refused.body).toEqual({ error: 'Too many held requests', code: 'too_many_waiters', limit: 3 });
    expect(refused.headers['retry-after']).toBe('1');
    running.finish();
    for (const res of await Promise.all(holds)) expect(res.body.state).toBe('completed');
    expect(waiting()).toBe(0);
  });

  it('wakes waiters when the session closes (404 session_not_found, as a poll)', async () => {
    const promptId = await daemon.prompt(sessionId, 'p', clientId);
    await daemon.engine.nextTurn();
    const answer = turn(promptId, '?waitMs=60000').then((res) => res);
    await held(1);
    await daemon.http.delete(`/session/${sessionId}`).expect(204);
    const res = await answer;
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'session_not_found', sessionId });
    expect(waiting()).toBe(0);
  });

  it('wakes waiters on a rewind: a prompt taken off the chain answers 404', async () => {
    const promptId = await daemon.prompt(sessionId, 'p', clientId);
    (await daemon.engine.nextTurn()).finish();
    const settledRes = await turn(promptId, '?waitMs=60000').expect(200);
    const answer = turn(promptId, '?waitMs=60000')
      .set('If-None-Match', settledRes.headers.etag!)
      .then((res) => res);
    await held(1);
    await daemon.http.post(`/session/${sessionId}/rewind`).send({ promptId }).expect(200);
    const res = await answer;
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'prompt_not_found' });
  });

  it('releases the waiter of a client that goes away, at once', async () => {
    const promptId = await daemon.prompt(sessionId, 'p', clientId);
    await daemon.engine.nextTurn();
    const controller = new AbortController();
    const gone = fetch(`${daemon.url}/session/${sessionId}/turns/${promptId}?waitMs=60000`, { signal: controller.signal }).catch(
      () => 'aborted',
    );
    await held(1);
    controller.abort();
    expect(await gone).toBe('aborted');
    await held(0);
  });
});
