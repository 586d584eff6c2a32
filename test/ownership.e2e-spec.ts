import { randomUUID } from 'node:crypto';
import { controllerRoutes } from '../src/daemon/route-table.js';
import { permissionRequestId } from '../src/wire/permission-request-id.js';
import { eventually } from './support/eventually.js';
import { ADAPTERS, startDaemon, tempDir, type TestDaemon } from './support/test-daemon.js';
import { as, bearer, testPrincipals, writeTokensFile } from './support/test-principals.js';

/** A session of the daemon's own, with a settled prompt and a running turn that waits on two requests for approval. */
interface Fixture {
  sessionId: string;
  promptId: string;
  requestIds: [string, string];
}

interface SessionRoute {
  method: string;
  /** `/session/:id/...` or `/permission/:requestId`. */
  template: string;
}

interface Answer {
  status: number;
  code?: string;
  /** The body, with the session's and requests' ids replaced by placeholders. */
  body: string;
}

const ANSWER = { outcome: { outcome: 'selected', optionId: 'allow_once' } };

/** Every route of a session, as the app's own route table declares it: a new route is in this list without an edit here. */
function sessionRoutes(daemon: TestDaemon): SessionRoute[] {
  const routes = new Map<string, SessionRoute>();
  for (const route of controllerRoutes(daemon.app)) {
    const segments = route.path.split('/').filter(Boolean);
    const scoped = (segments[0] === 'session' && segments[1] === ':id') || (segments[0] === 'permission' && segments.length === 2);
    if (!scoped) continue;
    const template = `/${segments.join('/')}`;
    routes.set(`${route.method} ${template}`, { method: route.method, template });
  }
  // The owner's turn: answers while its turn still waits, then what ends things, the close last of all.
  const order = (route: SessionRoute) =>
    route.template.includes('permission')
      ? 0
      : /\/(cancel|rewind|detach)$/.test(route.template)
        ? 2
        : route.method === 'DELETE' && route.template === '/session/:id'
          ? 3
          : 1;
  return [...routes.values()].sort((a, b) => order(a) - order(b));
}

/** A body each route's own validation accepts, so that only the session decides its answer. */
function bodyOf(route: SessionRoute, fixture: Fixture): unknown {
  if (route.template.includes('permission')) return ANSWER;
  if (route.template.endsWith('/prompt')) return { prompt: [{ type: 'text', text: 'again' }] };
  if (route.template.endsWith('/rewind')) return { promptId: fixture.promptId };
  if (route.template.endsWith('/webhooks') && route.method === 'POST') return { url: 'http://127.0.0.1:9/hook' };
  return {};
}

/** Other spellings of a path the frameworks may route alike: the id's or the prefix's first character percent-encoded, the prefix in capitals. */
const SPELLINGS: Record<string, (path: string) => string> = {
  encoded: (path) =>
    path.replace(/^(\/(?:session|permission)\/)(.)/, (_, prefix: string, first: string) => `${prefix}%${first.charCodeAt(0).toString(16)}`),
  capitals: (path) => path.replace(/^\/(session|permission)\//, (prefix) => prefix.toUpperCase()),
  'encoded prefix': (path) => path.replace(/^\/(.)/, (_, first: string) => `/%${first.charCodeAt(0).toString(16)}`),
};

function pathOf(route: SessionRoute, fixture: Fixture, spelling: (path: string) => string = (path) => path): string {
  const unscoped = route.template.startsWith('/permission/');
  return spelling(
    route.template
      .split('/')
      .map((segment) => {
        if (segment === ':id') return fixture.sessionId;
        if (segment === ':promptId') return fixture.promptId;
        if (segment === ':requestId') return fixture.requestIds[unscoped ? 1 : 0];
        return segment.startsWith(':') ? 'not-there' : segment;
      })
      .join('/'),
  );
}

async function send(
  daemon: TestDaemon,
  route: SessionRoute,
  fixture: Fixture,
  headers: Record<string, string>,
  spelling?: (path: string) => string,
): Promise<Answer> {
  const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : JSON.stringify(bodyOf(route, fixture));
  const abort = new AbortController();
  const res = await fetch(`${daemon.url}${pathOf(route, fixture, spelling)}`, {
    method: route.method,
    headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body,
    signal: abort.signal,
  });
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
    abort.abort();
    return { status: res.status, body: '(a stream)' };
  }
  const text = await res.text();
  let code: string | undefined;
  try {
    code = (JSON.parse(text) as { code?: string }).code;
  } catch {
    code = undefined;
  }
  let normalized = text;
  for (const [index, id] of fixture.requestIds.entries()) normalized = normalized.replaceAll(id, `<request${index}>`);
  normalized = normalized.replaceAll(fixture.sessionId, '<session>');
  return { status: res.status, ...(code !== undefined && { code }), body: normalized };
}

/** What a session that does not exist answers, with the same route's other parameters. */
function missing(fixture: Fixture): Fixture {
  const sessionId = randomUUID();
  return {
    sessionId,
    promptId: fixture.promptId,
    requestIds: [permissionRequestId(sessionId, '0123456789abcdef'), permissionRequestId(sessionId, 'fedcba9876543210')],
  };
}

async function turnOf(daemon: TestDaemon, fixture: { sessionId: string }, promptId: string, headers: Record<string, string>) {
  return (await daemon.http.get(`/session/${fixture.sessionId}/turns/${promptId}`).set(headers).expect(200)).body;
}

/** The next turn the engine starts for `sessionId` (a turn an earlier test left queued on another session is ended). */
async function nextTurnOf(daemon: TestDaemon, sessionId: string) {
  for (;;) {
    const turn = await daemon.engine.nextTurn();
    if (turn.sessionId === sessionId) return turn;
    turn.finish();
  }
}

/** A session of `owner` with one settled prompt and a running one that waits on two requests for approval. */
async function ownedSession(daemon: TestDaemon, owner: Record<string, string>): Promise<Fixture> {
  const created = await daemon.http.post('/session').set(owner).send({ sessionScope: 'thread' }).expect(200);
  const sessionId: string = created.body.sessionId;
  const prompt = async () =>
    (
      await daemon.http
        .post(`/session/${sessionId}/prompt`)
        .set(owner)
        .send({ prompt: [{ type: 'text', text: 'hi' }] })
        .expect(202)
    ).body.promptId as string;
  const promptId = await prompt();
  const first = await nextTurnOf(daemon, sessionId);
  first.say('one');
  first.finish();
  await eventually(async () => ((await turnOf(daemon, { sessionId }, promptId, owner)).state === 'completed' ? true : undefined));
  const running = await prompt();
  const second = await nextTurnOf(daemon, sessionId);
  void second.askPermission('first');
  void second.askPermission('second');
  const turn = await eventually(async () => {
    const status = await turnOf(daemon, { sessionId }, running, owner);
    return status.pendingInteractions?.length === 2 ? status : undefined;
  });
  const [one, two] = turn.pendingInteractions as Array<{ requestId: string }>;
  return { sessionId, promptId, requestIds: [one!.requestId, two!.requestId] };
}

describe.each(ADAPTERS)('a session belongs to its principal (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startDaemon({ httpAdapter }, { authentication: testPrincipals });
  });
  afterAll(() => daemon.close(true));

  it('covers every route of a session the app declares', () => {
    const routes = sessionRoutes(daemon).map((route) => `${route.method} ${route.template}`);
    // A sample the app must still have: the list is the route table's, not this test's.
    expect(routes).toEqual(
      expect.arrayContaining([
        'GET /session/:id/turns/:promptId',
        'GET /session/:id/events',
        'POST /permission/:requestId',
        'POST /session/:id/permission/:requestId',
        'DELETE /session/:id',
      ]),
    );
    expect(routes.length).toBeGreaterThanOrEqual(20);
  });

  it('answers another principal on every route exactly as for a session that does not exist; the owner is answered', async () => {
    const fixture = await ownedSession(daemon, as('alice'));
    const absent = missing(fixture);
    const routes = sessionRoutes(daemon);
    for (const route of routes) {
      const none = await send(daemon, route, absent, as('bob'));
      const bob = await send(daemon, route, fixture, as('bob'));
      const name = `${route.method} ${route.template}`;
      expect({ name, ...bob }).toEqual({ name, ...none });
      expect([name, bob.status]).toEqual([name, 404]);
      // No principal at all (a request the token check let through unnamed) sees no more.
      const anonymous = await send(daemon, route, fixture, {});
      expect({ name, status: anonymous.status, code: anonymous.code }).toEqual({ name, status: none.status, code: none.code });
    }
    // Nothing bob sent reached the session: both requests still wait, and the owner answers each route.
    for (const route of routes) {
      const name = `${route.method} ${route.template}`;
      const alice = await send(daemon, route, fixture, as('alice'));
      expect({ name, notFound: alice.code === 'session_not_found' }).toEqual({ name, notFound: false });
      if (route.template.includes('permission')) expect({ name, status: alice.status }).toEqual({ name, status: 200 });
    }
  });

  it('lets no other spelling of a path past the check: percent-encoded ids and capital prefixes find nothing either', async () => {
    const fixture = await ownedSession(daemon, as('alice'));
    const routes = sessionRoutes(daemon);
    for (const [spelled, spelling] of Object.entries(SPELLINGS)) {
      for (const route of routes) {
        const name = `${spelled} ${route.method} ${route.template}`;
        const bob = await send(daemon, route, fixture, as('bob'), spelling);
        expect({ name, status: bob.status }).toEqual({ name, status: 404 });
      }
    }
    // Nothing reached the session: both requests for approval still wait for the owner's answer.
    for (const route of routes.filter((r) => r.template.includes('permission'))) {
      const name = `${route.method} ${route.template}`;
      expect({ name, status: (await send(daemon, route, fixture, as('alice'))).status }).toEqual({ name, status: 200 });
    }
  });

  it('lets an operator read and answer every route of anyone’s session', async () => {
    const fixture = await ownedSession(daemon, as('alice'));
    for (const route of sessionRoutes(daemon)) {
      const name = `${route.method} ${route.template}`;
      const root = await send(daemon, route, fixture, as('op:root'));
      expect({ name, notFound: root.code === 'session_not_found' }).toEqual({ name, notFound: false });
      if (route.template.includes('permission')) expect({ name, status: root.status }).toEqual({ name, status: 200 });
    }
  });

  it('hands a fork and a branch the owner of their source, whoever made them', async () => {
    const { sessionId } = await daemon.http
      .post('/session')
      .set(as('alice'))
      .send({ sessionScope: 'thread' })
      .expect(200)
      .then((r) => r.body);
    const fork = (await daemon.http.post(`/session/${sessionId}/fork`).set(as('alice')).send({}).expect(200)).body.sessionId;
    const branch = (await daemon.http.post(`/session/${sessionId}/branch`).set(as('op:root')).send({}).expect(201)).body.sessionId;
    for (const id of [fork, branch]) {
      await daemon.http.get(`/session/${id}/status`).set(as('alice')).expect(200);
      const refused = await daemon.http.get(`/session/${id}/status`).set(as('bob')).expect(404);
      expect(refused.body).toEqual({ error: expect.any(String), code: 'session_not_found', sessionId: id });
    }
  });

  it('shows a session made with no principal to requests with none and to operators, not to a named principal', async () => {
    const { sessionId } = await daemon.http
      .post('/session')
      .send({ sessionScope: 'thread' })
      .expect(200)
      .then((r) => r.body);
    await daemon.http.get(`/session/${sessionId}/status`).expect(200);
    await daemon.http.get(`/session/${sessionId}/status`).set(as('op:root')).expect(200);
    expect((await daemon.http.get(`/session/${sessionId}/status`).set(as('bob')).expect(404)).body.code).toBe('session_not_found');
  });
});

describe.each(ADAPTERS)('principals of a tokens file own their sessions (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startDaemon({ httpAdapter, tokensFile: writeTokensFile(tempDir()) });
  });
  afterAll(() => daemon.close(true));

  it('answers the bearer of another principal’s token as for a missing session on every route; the operator’s is answered', async () => {
    const fixture = await ownedSession(daemon, bearer('alice'));
    const absent = missing(fixture);
    for (const route of sessionRoutes(daemon)) {
      const name = `${route.method} ${route.template}`;
      expect({ name, ...(await send(daemon, route, fixture, bearer('bob'))) }).toEqual({
        name,
        ...(await send(daemon, route, absent, bearer('bob'))),
      });
    }
    const operator = await daemon.http.get(`/session/${fixture.sessionId}/status`).set(bearer('root'));
    expect(operator.status).toBe(200);
  });
});
