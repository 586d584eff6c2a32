import { ADAPTERS, startDaemon, type TestDaemon } from './support/test-daemon.js';

const UI = 'http://localhost:3000';
const TOKEN = 'front-door-token';
const auth = { Authorization: `Bearer ${TOKEN}` };

// Every answer carries the front door's headers (X-Request-Id, CORS), whichever stage or framework part gave it:
// on Fastify they go on the reply by a hook, so each way out is checked on both adapters.
describe.each(ADAPTERS)('front door headers on every answer (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startDaemon({ httpAdapter, token: TOKEN, allowOrigins: [UI] });
  });
  afterAll(() => daemon.close(true));

  it.each([
    ['a routed answer', 'GET', '/capabilities', 200],
    ['a public route', 'GET', '/health', 200],
    ['a path no route has', 'GET', '/no/such/route', 404],
    ['the gate (405)', 'DELETE', '/health', 405],
    ['the bearer token (401)', 'GET', '/capabilities', 401],
  ])('%s', async (_name, method, path, status) => {
    const headers = status === 401 ? {} : auth;
    const res = await fetch(`${daemon.url}${path}`, { method, headers: { ...headers, origin: UI, 'x-request-id': 'req-1' } });
    expect(res.status).toBe(status);
    expect(res.headers.get('x-request-id')).toBe('req-1');
    expect(res.headers.get('access-control-allow-origin')).toBe(UI);
    const made = await fetch(`${daemon.url}${path}`, { method, headers });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(made.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('a Fastify or Express parse error answered before any route', async () => {
    const res = await fetch(`${daemon.url}/session`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'x-request-id': 'bad-json' },
      body: '{',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-request-id')).toBe('bad-json');
  });

  it('an event stream (written by Nest on the raw response) carries them too', async () => {
    const created = await fetch(`${daemon.url}/session`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{}',
    });
    const { sessionId, clientId } = (await created.json()) as { sessionId: string; clientId: string };
    const stop = new AbortController();
    const res = await fetch(`${daemon.url}/session/${sessionId}/events`, {
      headers: { ...auth, 'x-qwen-client-id': clientId, origin: UI, 'x-request-id': 'sse-1' },
      signal: stop.signal,
    });
    stop.abort();
    expect([res.status, res.headers.get('content-type')]).toEqual([200, expect.stringMatching(/^text\/event-stream/)]);
    expect(res.headers.get('x-request-id')).toBe('sse-1');
    expect(res.headers.get('access-control-allow-origin')).toBe(UI);
  });

  it('asks for the token on a path no route has, and lets a public route pass without it', async () => {
    for (const path of ['/no/such/route', '/CAPABILITIES', '/capabilities/']) {
      const res = await fetch(`${daemon.url}${path}`);
      expect([res.status, await res.json()]).toEqual([401, { error: 'Unauthorized', code: 'unauthorized' }]);
    }
    expect((await fetch(`${daemon.url}/health`)).status).toBe(200);
  });
});
