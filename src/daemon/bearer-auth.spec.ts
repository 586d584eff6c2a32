import type { IncomingMessage, ServerResponse } from 'node:http';
import { FrontRequest, type RouteMatcher } from '../http/front-door.js';
import { bearerAuth } from './bearer-auth.js';
import { BearerToken } from './bearer-token.js';

/** `/health` is public, `/capabilities` is not, nothing else is a route. */
const routes: RouteMatcher = {
  match: (path) =>
    path === '/health' || path === '/capabilities'
      ? { allowed: ['GET', 'HEAD', 'OPTIONS'], route: () => ({ template: path, public: path === '/health' }) }
      : undefined,
};

function run(url: string, authorization?: string): string {
  const req = { url, method: 'GET', headers: { authorization }, resume: () => undefined } as unknown as IncomingMessage;
  let status = 'passed';
  const res = { end: () => undefined } as unknown as ServerResponse;
  const front = new FrontRequest(req, res, routes);
  // After the front door put its own writeHead on the response: this one records the answer.
  res.writeHead = ((code: number, headers: Record<string, unknown>) =>
    (status = `${code} ${String(headers['WWW-Authenticate'])}`)) as never;
  bearerAuth(new BearerToken('s3cret'))(front, () => undefined);
  return status;
}

describe('bearerAuth', () => {
  it('lets public routes pass without a token', () => expect(run('/health')).toBe('passed'));

  it('asks every other request for the token, on paths no route has too', () => {
    for (const url of ['/capabilities', '/CAPABILITIES', '/capabilities/', '/nope']) expect(run(url)).toBe('401 Bearer');
    expect(run('/capabilities', 'Bearer wrong')).toBe('401 Bearer');
    expect(run('/capabilities', 'bearer s3cret')).toBe('passed');
    expect(run('/nope', 'Bearer s3cret')).toBe('passed');
  });
});
