import { readFileSync } from 'node:fs';
import { LocalSessionOwnership } from '../src/sessions/session-ownership.js';
import { ChatRecordingService } from '../src/transcript/chat-recording.service.js';
import { deferred } from './support/deferred.js';
import { pollTurn } from './support/poll.js';
import { ADAPTERS, startDaemon, tempDir, type TestDaemon } from './support/test-daemon.js';

const KEY = 'Idempotency-Key';
const text = (t: string) => ({ prompt: [{ type: 'text', text: t }] });

/** An ownership whose next claim waits until the test lets it go: a create held in flight. */
class HeldClaimOwnership extends LocalSessionOwnership {
  hold?: { reached: () => void; release: Promise<void> };
  override async claim(): Promise<void> {
    const hold = this.hold;
    this.hold = undefined;
    if (hold) {
      hold.reached();
      await hold.release;
    }
  }
}

describe.each(ADAPTERS)('Idempotency-Key on admission (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  let dataDir: string;
  const ownership = new HeldClaimOwnership();

  beforeEach(async () => {
    dataDir = tempDir();
    daemon = await startDaemon({ httpAdapter, dataDir }, { ownership });
  });
  afterEach(() => daemon.close(true));

  const post = (sessionId: string, key: string | undefined, body: object, clientId?: string) => {
    const req = daemon.http.post(`/session/${sessionId}/prompt`);
    if (key !== undefined) req.set(KEY, key);
    if (clientId) req.set('X-Qwen-Client-Id', clientId);
    return req.send(body);
  };
  const pendingCount = async (sessionId: string) =>
    (await daemon.http.get(`/session/${sessionId}/pending-prompts`).expect(200)).body.pendingPrompts.length;

  it('advertises idempotency_keys and its limits', async () => {
    const caps = (await daemon.http.get('/capabilities').expect(200)).body;
    expect(caps.features).toContain('idempotency_keys');
    expect(caps.limits).toMatchObject({ maxIdempotencyKeys: 10_000, idempotencyTtlMs: 86_400_000 });
  });

  it('admits once for the same key twice: the same status and body, the second marked Idempotent-Replayed', async () => {
    const { sessionId, clientId } = await daemon.createSession();
    const first = await post(sessionId, 'retry-1', text('hello'), clientId).expect(202);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const second = await post(sessionId, 'retry-1', text('hello'), clientId).expect(202);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(await pendingCount(sessionId)).toBe(1);
    // Same body in another key order is the same request.
    await post(sessionId, 'retry-1', { prompt: [{ text: 'hello', type: 'text' }] }, clientId).expect(202);
    expect(await pendingCount(sessionId)).toBe(1);
  });

  it('answers 422 idempotency_key_reused for the same key with another body, and admits nothing', async () => {
    const { sessionId } = await daemon.createSession();
    await post(sessionId, 'k', text('one')).expect(202);
    const reused = await post(sessionId, 'k', text('two')).expect(422);
    expect(reused.body).toEqual({ error: expect.any(String), code: 'idempotency_key_reused' });
    expect(await pendingCount(sessionId)).toBe(1);
  });

  it('answers 400 invalid_idempotency_key for a malformed key, after the session and client checks', async () => {
    const { sessionId } = await daemon.createSession();
    const bad = await post(sessionId, 'has space', text('x')).expect(400);
    expect(bad.body).toEqual({ error: expect.any(String), code: 'invalid_idempotency_key' });
    await post(sessionId, 'x'.repeat(256), text('x')).expect(400);
    await post('5c1d2a8e-7f7b-4a44-9a57-1f2e3d4c5b6a', 'has space', text('x')).expect(404);
    expect(await pendingCount(sessionId)).toBe(0);
  });

  it('scopes keys per session and per client id', async () => {
    const a = await daemon.createSession({ sessionScope: 'thread' });
    const b = await daemon.createSession({ sessionScope: 'thread' });
    const other = (await daemon.http.post('/session').send({}).expect(200)).body.clientId as string;
    const pa = await post(a.sessionId, 'same', text('x'), a.clientId).expect(202);
    const pb = await post(b.sessionId, 'same', text('x'), b.clientId).expect(202);
    expect(pb.body.promptId).not.toBe(pa.body.promptId);
    // Another client id of session a (create attached to it): its own key space.
    const pc = await post(a.sessionId, 'same', text('x'), other).expect(202);
    expect(pc.headers['idempotent-replayed']).toBeUndefined();
    expect(pc.body.promptId).not.toBe(pa.body.promptId);
  });

  it('frees the key of a request that failed, so the retry is processed', async () => {
    const { sessionId } = await daemon.createSession();
    await post(sessionId, 'k', { prompt: [] }).expect(400);
    const retried = await post(sessionId, 'k', text('fixed')).expect(202);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
  });

  it('replays a session create, and answers 409 idempotency_key_in_flight while the first is still being processed', async () => {
    const reached = deferred<void>();
    const release = deferred<void>();
    ownership.hold = { reached: () => reached.resolve(), release: release.promise };
    const first = daemon.http
      .post('/session')
      .set(KEY, 'create-1')
      .send({ sessionScope: 'thread' })
      .then((res) => res);
    await reached.promise;
    const concurrent = await daemon.http.post('/session').set(KEY, 'create-1').send({ sessionScope: 'thread' }).expect(409);
    expect(concurrent.body).toEqual({ error: expect.any(String), code: 'idempotency_key_in_flight' });
    expect(concurrent.headers['retry-after']).toBe('1');
    release.resolve();
    const created = await first;
    expect(created.status).toBe(200);
    const replayed = await daemon.http.post('/session').set(KEY, 'create-1').send({ sessionScope: 'thread' }).expect(200);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toEqual(created.body);
    await daemon.http.post('/session').set(KEY, 'create-1').send({ sessionScope: 'single' }).expect(422);
  });

  it('still replays after a restart and a load: the key is in the prompt’s transcript record', async () => {
    const { sessionId, clientId } = await daemon.createSession();
    const first = await post(sessionId, 'before-restart', text('hello'), clientId).expect(202);
    const turn = await daemon.engine.nextTurn();
    turn.say('hi');
    turn.finish();
    await pollTurn(daemon, sessionId, first.body.promptId);
    await daemon.close();
    const path = new ChatRecordingService({ dataDir, enabled: true }, { now: () => 0 }).transcriptPath(dataDir, sessionId);
    const user = readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .find((record) => record.type === 'user');
    expect(user.idempotency).toEqual({
      key: 'before-restart',
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      clientId,
      lastEventId: first.body.lastEventId,
      eventEpoch: first.body.eventEpoch,
      admittedAt: expect.any(Number),
    });

    daemon = await startDaemon({ httpAdapter, dataDir });
    await daemon.http.post(`/session/${sessionId}/load`).expect(200);
    // The client retries as it was: its client id and its key.
    const replayed = await post(sessionId, 'before-restart', text('hello'), clientId).expect(202);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toEqual(first.body);
    expect(await pendingCount(sessionId)).toBe(0);
    await post(sessionId, 'before-restart', text('changed'), clientId).expect(422);
  });

  it('does not carry keys into a fork', async () => {
    const { sessionId } = await daemon.createSession();
    const first = await post(sessionId, 'k', text('hello')).expect(202);
    const turn = await daemon.engine.nextTurn();
    turn.finish();
    await pollTurn(daemon, sessionId, first.body.promptId);
    const fork = (await daemon.http.post(`/session/${sessionId}/fork`).expect(200)).body.sessionId as string;
    const path = new ChatRecordingService({ dataDir, enabled: true }, { now: () => 0 }).transcriptPath(dataDir, fork);
    expect(readFileSync(path, 'utf8')).not.toContain('"idempotency"');
  });
});
