import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { FrontRequest, frontRequestOf, installFrontDoor, type FrontStage, type RouteMatcher } from './front-door.js';

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
    expect(reached).toEqual([{ url: '/health', headers: { 'x-a': 'a', 'x-b': 'b', 'x-c': 'c' } }]);
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

  it('leaves the headers to the framework where it puts them on its reply (Fastify)', () => {
    const { server: target, reached, send } = server();
    installFrontDoor(target, [(front, next) => ((front.headers['x-request-id'] = 'r1'), next())], { headersOnReply: true });
    send('/health');
    expect(reached[0]!.headers).toEqual({});
  });

  it('leaves the parsed request on the raw one for the framework side', () => {
    const emitter = new EventEmitter();
    let found: FrontRequest | undefined;
    emitter.on('request', (req: IncomingMessage) => (found = frontRequestOf(req)));
    installFrontDoor(emitter as unknown as Server, []);
    emitter.emit('request', request('/x?y'), new FakeResponse());
    expect(found?.query).toBe('y');
  });
});
