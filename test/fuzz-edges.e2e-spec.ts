import { pollTurn } from './support/poll.js';
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
    const res = await daemon.http
      .post(`/session/${body.sessionId}/prompt`)
      .set(auth)
      .set('Content-Type', 'application/json')
      .send('{"prompt":[{"type":"text","text":"ok"},{"type":"text","text":"a\\ud800"}]}');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'prompt.1.text: contains a lone UTF-16 surrogate', code: 'invalid_request' });
    const pair = await daemon.http
      .post(`/session/${body.sessionId}/prompt`)
      .set(auth)
      .set('Content-Type', 'application/json')
      .send('{"prompt":[{"type":"text","text":"\\ud83d\\ude00"}]}');
    expect(pair.status).toBe(202);
  });
});
