import { ADAPTERS, startDaemon, type TestDaemon } from './support/test-daemon.js';

/** The peer's cap on live sessions (TURNS_MAX_SESSIONS, 32 by default): a new one is refused, an attach still works. */
describe.each(ADAPTERS)('the default cap on live sessions (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startDaemon({ httpAdapter });
  });
  afterAll(() => daemon.close(true));

  it('refuses the 33rd with 503 too_many_sessions and Retry-After; attaching to a live one still answers', async () => {
    const capabilities = await daemon.http.get('/capabilities').expect(200);
    expect(capabilities.body.limits).toMatchObject({ maxSessions: 32, sessionIdleTimeoutMs: 1_800_000 });
    const first = await daemon.createSession();
    for (let i = 1; i < 32; i += 1) await daemon.createSession({ sessionScope: 'thread' });

    const refused = await daemon.http.post('/session').send({ sessionScope: 'thread' }).expect(503);
    expect(refused.body).toEqual({ error: 'Too many live sessions', code: 'too_many_sessions', limit: 32 });
    expect(refused.headers['retry-after']).toBe('1');
    await daemon.http.post(`/session/${first.sessionId}/branch`).send({}).expect(503);

    const single = await daemon.http.post('/session').send({}).expect(200);
    expect(single.body).toMatchObject({ sessionId: first.sessionId, attached: true });
    const byId = await daemon.http.post('/session').send({ sessionId: first.sessionId }).expect(200);
    expect(byId.body).toMatchObject({ sessionId: first.sessionId, attached: true });
    const loaded = await daemon.http.post(`/session/${first.sessionId}/load`).expect(200);
    expect(loaded.body).toMatchObject({ sessionId: first.sessionId, attached: true });

    // One closed makes room again.
    await daemon.http.delete(`/session/${first.sessionId}`).expect(204);
    await daemon.http.post('/session').send({ sessionScope: 'thread' }).expect(200);
  });
});
