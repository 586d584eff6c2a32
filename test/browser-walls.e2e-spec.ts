import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { SessionRegistry } from '../src/sessions/session-registry.js';
import { ADAPTERS, startDaemon, type TestDaemon } from './support/test-daemon.js';

const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
const EVIL = 'http://evil.example';
const UI = 'http://localhost:3000';

/** What a page can send without a preflight: the "simple" media types, each with a body. */
const SIMPLE_BODIES: Array<[string, string]> = [
  ['text/plain', '{"sessionScope":"thread"}'],
  ['application/x-www-form-urlencoded', 'a=b'],
  ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--x--\r\n'],
];

describe.each(ADAPTERS)('browser walls: no web page reaches the daemon (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  let session: { sessionId: string; clientId: string };
  let promptId: string;
  const liveSessions = () => daemon.app.get(SessionRegistry).size;

  beforeAll(async () => {
    daemon = await startDaemon({ httpAdapter, allowOrigins: [UI] });
    session = await daemon.createSession({ sessionScope: 'thread' });
    promptId = await daemon.prompt(session.sessionId, 'running', session.clientId);
    await daemon.engine.nextTurn();
  });
  afterAll(() => daemon.close(true));

  /** Every route that changes state, as a page would address it. */
  const changingRoutes = (): Array<[string, 'post' | 'delete', string]> => [
    ['create a session', 'post', '/session'],
    ['load a session', 'post', `/session/${session.sessionId}/load`],
    ['admit a prompt', 'post', `/session/${session.sessionId}/prompt`],
    ['remove a pending prompt', 'delete', `/session/${session.sessionId}/pending-prompts/${promptId}`],
    ['cancel', 'post', `/session/${session.sessionId}/cancel`],
    ['rewind', 'post', `/session/${session.sessionId}/rewind`],
    ['fork', 'post', `/session/${session.sessionId}/fork`],
    ['resume a session', 'post', `/session/${session.sessionId}/resume`],
    ['branch', 'post', `/session/${session.sessionId}/branch`],
    ['heartbeat', 'post', `/session/${session.sessionId}/heartbeat`],
    ['detach', 'post', `/session/${session.sessionId}/detach`],
    ['close the session', 'delete', `/session/${session.sessionId}`],
  ];

  /** Nothing changed: the same sessions, the same prompt still running. */
  async function expectNothingChanged(sessionsBefore: number) {
    expect(liveSessions()).toBe(sessionsBefore);
    const current = await daemon.http.get(`/session/${session.sessionId}/turns/current`).set('X-Qwen-Client-Id', session.clientId);
    expect(current.body).toMatchObject({ state: 'running', promptId });
  }

  it('refuses cross-origin simple requests on every state-changing route, before any work', async () => {
    const before = liveSessions();
    for (const [name, method, path] of changingRoutes()) {
      for (const [type, body] of SIMPLE_BODIES) {
        const res = await daemon.http[method](path).set('Origin', EVIL).set('Content-Type', type).send(body);
        expect({ name, type, status: res.status, body: res.body }).toEqual({
          name,
          type,
          status: 403,
          body: { error: 'Requests from this origin are not allowed', code: 'origin_forbidden' },
        });
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
      }
    }
    await expectNothingChanged(before);
  });

  it('refuses a foreign origin on the read routes too, /health and the docs included', async () => {
    for (const path of [
      '/health',
      '/capabilities',
      '/docs-json',
      `/session/${session.sessionId}/turns/current`,
      `/session/${session.sessionId}/events`,
    ]) {
      const res = await daemon.http.get(path).set('Origin', EVIL).set('X-Qwen-Client-Id', session.clientId);
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 403, code: 'origin_forbidden' });
    }
    const preflight = await daemon.http.options('/session').set('Origin', EVIL).set('Access-Control-Request-Method', 'POST');
    expect(preflight.status).toBe(403);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses a rebinding Host on every route, even from its own origin', async () => {
    const before = liveSessions();
    const host = `rebind.evil.example:${new URL(daemon.url).port}`;
    for (const path of ['/health', '/capabilities', `/session/${session.sessionId}/turns/${promptId}`]) {
      const res = await daemon.http.get(path).set('Host', host).set('X-Qwen-Client-Id', session.clientId);
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 403,
        body: { error: 'Requests for this host are not allowed', code: 'origin_forbidden' },
      });
    }
    for (const [, method, path] of changingRoutes()) {
      const res = await daemon.http[method](path)
        .set('Host', host)
        .set('Origin', `http://${host}`)
        .set('X-Qwen-Client-Id', session.clientId)
        .send({ prompt: [{ type: 'text', text: 'x' }] });
      expect(res.status).toBe(403);
    }
    await expectNothingChanged(before);
    // The loopback names are the daemon's own.
    for (const name of ['localhost', '127.0.0.1', '[::1]']) {
      await daemon.http
        .get('/health')
        .set('Host', `${name}:${new URL(daemon.url).port}`)
        .expect(200);
    }
  });

  it('takes bodies only as application/json: 415 for any other media type, empty bodies included', async () => {
    const before = liveSessions();
    for (const [name, method, path] of changingRoutes()) {
      for (const [type, body] of [...SIMPLE_BODIES, ['text/plain', ''] as [string, string]]) {
        const res = await daemon.http[method](path).set('Content-Type', type).set('X-Qwen-Client-Id', session.clientId).send(body);
        expect({ name, type, status: res.status, code: res.body.code }).toEqual({
          name,
          type,
          status: 415,
          code: 'unsupported_media_type',
        });
      }
    }
    await expectNothingChanged(before);
    // No media type and no body: the route's defaults (`curl -X POST`).
    const fork = await daemon.http.post(`/session/${session.sessionId}/fork`).set('X-Qwen-Client-Id', session.clientId);
    expect(fork.status).toBe(200);
    expect(liveSessions()).toBe(before + 1);
    await daemon.http.delete(`/session/${fork.body.sessionId}`).set('X-Qwen-Client-Id', fork.body.clientId).expect(204);
  });

  it('lets an allowed origin in: preflight 204, the origin echoed, the headers a client reads exposed', async () => {
    const preflight = await daemon.http
      .options(`/session/${session.sessionId}/prompt`)
      .set('Origin', UI)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type, x-qwen-client-id, idempotency-key');
    expect(preflight.status).toBe(204);
    expect(preflight.headers).toMatchObject({
      'access-control-allow-origin': UI,
      vary: 'Origin',
      'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
    });
    expect(preflight.headers['access-control-allow-headers']).toMatch(/Idempotency-Key/);
    const poll = await daemon.http
      .get(`/session/${session.sessionId}/turns/${promptId}`)
      .set('Origin', UI)
      .set('X-Qwen-Client-Id', session.clientId);
    expect(poll.status).toBe(200);
    expect(poll.headers['access-control-allow-origin']).toBe(UI);
    expect(poll.headers.vary).toMatch(/Origin/);
    expect(poll.headers['access-control-expose-headers']).toMatch(
      /ETag.*Retry-After.*Preference-Applied.*X-Turns-Node.*X-Qwen-Event-Epoch/,
    );
    // A refusal an allowed page receives carries the CORS headers, so the page can read why.
    const refused = await daemon.http.post('/session').set('Origin', UI).set('Content-Type', 'text/plain').send('x');
    expect(refused.status).toBe(415);
    expect(refused.headers['access-control-allow-origin']).toBe(UI);
    // Another port is another origin.
    await daemon.http.get('/health').set('Origin', 'http://localhost:3001').expect(403);
  });
});

interface Outcome {
  ok: boolean;
  state?: string;
  resultText?: string;
  events?: string[];
  error?: string;
}

interface PageServer {
  server: Server;
  origin: string;
  /** The daemon the page calls (set once the daemon listens). */
  daemonUrl: string;
  /** The next outcome a page posts back. */
  outcome(): Promise<Outcome>;
}

/** The test page: a full prompt-and-wait with `nest-turn-status/client` and the session's event stream; it posts its outcome back. */
const pageFor = (daemonUrl: string) => `<!doctype html><html><body><script type="module">
import { TurnsClient } from '/client/index.js';
const report = (outcome) => fetch('/result', { method: 'POST', body: JSON.stringify(outcome) });
try {
  const anonymous = new TurnsClient({ baseUrl: ${JSON.stringify(daemonUrl)} });
  const { sessionId, clientId } = await anonymous.createSession({ sessionScope: 'thread' });
  const client = new TurnsClient({ baseUrl: ${JSON.stringify(daemonUrl)}, clientId });
  const source = new EventSource(${JSON.stringify(daemonUrl)} + '/session/' + sessionId + '/events');
  const events = [];
  const completed = new Promise((resolve) => {
    for (const type of ['session_update', 'turn_complete']) {
      source.addEventListener(type, () => {
        events.push(type);
        if (type === 'turn_complete') resolve();
      });
    }
  });
  // Prompt once the stream is open: the daemon subscribed before its first frame, so no event of this turn is missed.
  await new Promise((resolve, reject) => {
    source.addEventListener('open', resolve, { once: true });
    source.addEventListener('error', () => reject(new Error('event stream failed')), { once: true });
    setTimeout(() => reject(new Error('event stream did not open')), 20000);
  });
  const { promptId } = await client.prompt(sessionId, 'from the page');
  const status = await client.waitForTurn(sessionId, promptId, { timeoutMs: 20000 });
  // Bounded, so a missing event reports what the page saw instead of hanging.
  await Promise.race([
    completed,
    new Promise((_, reject) => setTimeout(() => reject(new Error('no turn_complete; saw ' + events.join(','))), 15000)),
  ]);
  source.close();
  await report({ ok: true, state: status.state, resultText: status.resultText, events });
} catch (error) {
  await report({ ok: false, error: String(error) });
}
</script></body></html>`;

/** A tiny page (and the client, compiled from src/client as it is) served on a loopback port of its own. */
async function servePage(): Promise<PageServer> {
  const clientDir = join(__dirname, '..', 'src', 'client');
  const served = { daemonUrl: '' } as PageServer;
  let report: (outcome: Outcome) => void = () => undefined;
  served.outcome = () => new Promise((resolve) => (report = resolve));
  served.server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/result') {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk));
      req.on('end', () => {
        res.writeHead(204).end();
        report(JSON.parse(body) as Outcome);
      });
      return;
    }
    const name = /^\/client\/([a-z-]+)\.js$/.exec(req.url ?? '')?.[1];
    if (name && existsSync(join(clientDir, `${name}.ts`))) {
      const source = readFileSync(join(clientDir, `${name}.ts`), 'utf8');
      const { outputText } = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      });
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(outputText);
    } else if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(pageFor(served.daemonUrl));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => served.server.listen(0, '127.0.0.1', resolve));
  served.origin = `http://127.0.0.1:${(served.server.address() as AddressInfo).port}`;
  return served;
}

/** Opens the page in headless Chromium and returns what it posts back (Chromium is stopped then, or after 60 s). */
async function runInChromium(page: PageServer): Promise<Outcome> {
  const profile = mkdtempSync(join(tmpdir(), 'turns-chromium-'));
  const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'];
  const outcome = page.outcome();
  const browser = spawn(CHROMIUM, [...flags, `--user-data-dir=${profile}`, '--remote-debugging-port=0', `${page.origin}/`], {
    stdio: 'ignore',
    // Its own process group, so its helper processes stop with it.
    detached: true,
  });
  const exited = new Promise((resolve) => browser.once('exit', resolve));
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Outcome>(
    (resolve) => (timer = setTimeout(() => resolve({ ok: false, error: 'no outcome within 60 s' }), 60_000)),
  );
  try {
    return await Promise.race([outcome, timeout]);
  } finally {
    clearTimeout(timer);
    process.kill(-browser.pid!, 'SIGKILL');
    await exited;
    rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

// Headless Chromium comes from the Debian package `chromium` (.ci/run installs it): skipped without it, except in CI.
(existsSync(CHROMIUM) || process.env.CI ? describe.each(ADAPTERS) : describe.skip.each(ADAPTERS))(
  'a web UI in headless Chromium (%s)',
  (httpAdapter) => {
    let allowed: PageServer;
    let other: PageServer;
    let daemon: TestDaemon;

    beforeAll(async () => {
      // Two pages on two loopback ports: two origins, of which the daemon allows one.
      [allowed, other] = await Promise.all([servePage(), servePage()]);
      daemon = await startDaemon({ httpAdapter, allowOrigins: [allowed.origin] });
      allowed.daemonUrl = other.daemonUrl = daemon.url;
    });
    afterAll(async () => {
      await Promise.all([allowed, other].map(({ server }) => new Promise((resolve) => server.close(resolve))));
      await daemon.close(true);
    });

    it('drives a full prompt-and-wait, with its event stream, from an allowed origin', async () => {
      const agent = daemon.engine.nextTurn().then((turn) => {
        turn.say('hello from the agent');
        turn.finish();
      });
      const result = await runInChromium(allowed);
      await agent;
      expect(result).toEqual({
        ok: true,
        state: 'completed',
        resultText: 'hello from the agent',
        events: expect.arrayContaining(['session_update', 'turn_complete']),
      });
    }, 120_000);

    it('fails from an origin that is not allowed, and creates nothing', async () => {
      const before = daemon.app.get(SessionRegistry).size;
      const result = await runInChromium(other);
      expect(result.ok).toBe(false);
      // A browser hides why a cross-origin fetch failed, so the client can only say it could not reach the daemon.
      expect(result.error).toMatch(/^TurnsConnectionError: cannot reach http:\/\/127\.0\.0\.1:\d+\/session: Failed to fetch/);
      expect(daemon.app.get(SessionRegistry).size).toBe(before);
    }, 120_000);
  },
);
