import { randomUUID } from 'node:crypto';
import { ADAPTERS, startDaemon, type TestDaemon } from './support/test-daemon.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * `X-Request-Id` on every answer, once: those the framework writes (on
 * Fastify the id rides in the header object it passes to `writeHead`) and
 * those written before it (the gate's 405, the walls' refusals).
 */
describe.each(ADAPTERS)('X-Request-Id (%s)', (httpAdapter) => {
  let daemon: TestDaemon;

  beforeAll(async () => {
    daemon = await startDaemon({ httpAdapter });
  });
  afterAll(() => daemon.close(true));

  it("echoes the client's id on a poll and makes one for a request without", async () => {
    const { sessionId } = await daemon.createSession();
    const promptId = await daemon.prompt(sessionId, 'hi');
    (await daemon.engine.nextTurn()).finish();
    const poll = await daemon.http.get(`/session/${sessionId}/turns/${promptId}?waitMs=5000`).set('X-Request-Id', 'poll-7').expect(200);
    expect(poll.headers['x-request-id']).toBe('poll-7');
    const made = await daemon.http.get('/health').expect(200);
    expect(made.headers['x-request-id']).toMatch(UUID);
  });

  it('replaces an id that is not short and plain', async () => {
    const res = await daemon.http.get('/health').set('X-Request-Id', 'a b').expect(200);
    expect(res.headers['x-request-id']).toMatch(UUID);
  });

  it('is on answers the framework never routes and on refusals before it, exactly once', async () => {
    const unknown = await daemon.http.get(`/nowhere/${randomUUID()}`).set('X-Request-Id', 'lost-1').expect(404);
    expect(unknown.headers['x-request-id']).toBe('lost-1');
    const wrongMethod = await daemon.http.put('/health').set('X-Request-Id', 'put-1').expect(405);
    expect(wrongMethod.headers['x-request-id']).toBe('put-1');
    const foreign = await daemon.http.post('/session').set('Origin', 'http://evil.example').set('X-Request-Id', 'wall-1').send({});
    expect(foreign.status).toBe(403);
    expect(foreign.headers['x-request-id']).toBe('wall-1');
  });
});
