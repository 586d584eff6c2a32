import { EventEmitter } from 'node:events';
import { IncomingMessage, ServerResponse, type Server } from 'node:http';
import { Socket } from 'node:net';
import { FrontRequest, installFrontDoor, type FrontStage, type RouteMatcher } from './front-door.js';

const SESSION = '0b7e8a52-2f0c-4a57-9d6e-6f1f4d1c0a11';

class FakeResponse {
  readonly set: Record<string, string> = {};
  setHeader(name: string, value: string): void {
    this.set[name] = value;
  }
}

const request = (url: string) => ({ url, method: 'GET', headers: {} }) as unknown as IncomingMessage;

describe('FrontRequest', () => {
  it('parses the URL once: path, query, session, routes', () => {
    const seen: string[] = [];
    const matcher: RouteMatcher = {
      match: (path) => {
        seen.push(path);
        return { allowed: ['GET'], route: () => ({ template: '/session/:id/turns/:promptId', public: false }) };
      },
    };
    const front = new FrontRequest(request(`/session/${SESSION}/turns/p1?waitMs=5`), {} as ServerResponse, matcher);
    expect([front.path, front.query, front.sessionId]).toEqual([`/session/${SESSION}/turns/p1`, 'waitMs=5', SESSION]);
    expect(front.route?.template).toBe('/session/:id/turns/:promptId');
    expect(seen).toEqual([`/session/${SESSION}/turns/p1`]);
    expect(new FrontRequest(request('/session/not-a-uuid'), {} as ServerResponse, undefined).sessionId).toBeUndefined();
  });
});

describe('installFrontDoor', () => {
  /** A server with one framework listener that records what reached it. */
  function server() {
    const emitter = new EventEmitter();
    const reached: Array<{ url: string | undefined; headers: Record<string, string> }> = [];
    emitter.on('request', (req: IncomingMessage, res: FakeResponse) => reached.push({ url: req.url, headers: { ...res.set } }));
    return {
      server: emitter as unknown as Server,
      reached,
      send: (url: string) => emitter.emit('request', request(url), new FakeResponse()),
    };
  }

  it('runs the stages in their order, over one parsed request, then the framework once', () => {
    const { server: target, reached, send } = server();
    const order: string[] = [];
    const fronts = new Set<FrontRequest>();
    const stage =
      (name: string): FrontStage =>
      (front, next) => {
        order.push(name);
        fronts.add(front);
        front.headers[`x-${name}`] = name;
        next();
      };
    installFrontDoor(target, [stage('a'), stage('b'), stage('c')]);
    send('/health');
    expect(order).toEqual(['a', 'b', 'c']);
    expect(fronts.size).toBe(1);
    expect(reached).toEqual([{ url: '/health', headers: {} }]);
    expect([...fronts][0]!.headers).toEqual({ 'x-a': 'a', 'x-b': 'b', 'x-c': 'c' });
  });

  it('stops where a stage answers, and resumes where one passes on later', () => {
    const { server: target, reached, send } = server();
    let later: (() => void) | undefined;
    installFrontDoor(target, [
      (front, next) => (front.path === '/refused' ? undefined : next()),
      (_front, next) => {
        later = next;
      },
    ]);
    send('/refused');
    expect(later).toBeUndefined();
    send('/held');
    expect(reached).toEqual([]);
    later!();
    expect(reached.map((r) => r.url)).toEqual(['/held']);
  });
});

describe("the front door's headers on the answer's head", () => {
  /** A real response (no socket: its head stays in `_header`) the front door saw, with `headers` as its front headers. */
  function response(headers: Record<string, string>) {
    const req = new IncomingMessage(new Socket());
    req.url = '/health';
    req.method = 'GET';
    const res = new ServerResponse(req);
    const front = new FrontRequest(req, res, undefined);
    Object.assign(front.headers, headers);
    return { req, res, front, head: () => (res as unknown as { _header: string })._header.toLowerCase() };
  }

  it("joins the framework's header object (Fastify's head), where the answer did not set the header", () => {
    const { res, head } = response({ 'x-request-id': 'r1', vary: 'Origin' });
    res.writeHead(200, { 'content-type': 'application/json', vary: 'Accept' });
    expect(head()).toContain('x-request-id: r1\r\n');
    expect(head()).toContain('vary: accept\r\n');
    expect(head()).not.toContain('vary: origin');
    expect(head()).toContain('content-type: application/json\r\n');
  });

  it("joins the headers set on the response (Express, Node's implicit head), without replacing one", () => {
    const { res, head } = response({ 'x-request-id': 'r2', vary: 'Origin' });
    res.setHeader('Vary', 'Accept');
    res.statusCode = 404;
    res.end('{}');
    expect(head()).toMatch(/^http\/1\.1 404 /);
    expect(head()).toContain('x-request-id: r2\r\n');
    expect(head()).toContain('vary: accept\r\n');
    expect(head()).not.toContain('vary: origin');
  });

  it("does not add a header the framework's object names in another case", () => {
    const { res, head } = response({ 'x-request-id': 'r3', vary: 'Origin' });
    res.writeHead(200, { Vary: 'Accept', 'X-Request-Id': 'mine' });
    expect(head().match(/^vary:/gm)).toHaveLength(1);
    expect(head()).toContain('x-request-id: mine\r\n');
    expect(head()).not.toContain('r3');
  });

  it("a second front door over the same response (a host's walls behind the cluster router) keeps the first's headers", () => {
    const { req, res, head } = response({ 'x-request-id': 'r4' });
    const inner = new FrontRequest(req, res, undefined);
    inner.headers['access-control-allow-origin'] = 'http://localhost:3000';
    res.end('{}');
    expect(head()).toContain('x-request-id: r4\r\n');
    expect(head()).toContain('access-control-allow-origin: http://localhost:3000\r\n');
  });

  it('keeps a reason phrase, and adds a header a stage set after the request was parsed', () => {
    const { res, front, head } = response({});
    front.headers['x-late'] = 'yes';
    res.writeHead(204, 'Nothing Here', { allow: 'GET' });
    expect(head()).toMatch(/^http\/1\.1 204 nothing here\r\n/);
    expect(head()).toContain('x-late: yes\r\n');
    expect(head()).toContain('allow: get\r\n');
  });
});
