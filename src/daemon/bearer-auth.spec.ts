import type { IncomingMessage, ServerResponse } from 'node:http';
import { FrontRequest, type RouteMatcher } from '../http/front-door.js';
import { principalOf } from '../http/request-principal.js';
import { bearerAuth } from './bearer-auth.js';
import { PrincipalTable } from './principal-table.js';
import { tokenDigest } from './tokens-file.js';

/** `/health` is public, `/capabilities` is not, nothing else is a route. */
const routes: RouteMatcher = {
  match: (path) =>
    path === '/health' || path === '/capabilities'
      ? { allowed: ['GET', 'HEAD', 'OPTIONS'], route: () => ({ template: path, public: path === '/health' }) }
      : undefined,
};

const table = new PrincipalTable([
  { principal: 'alice', digest: tokenDigest('s3cret'), operator: false },
  { principal: 'root', digest: tokenDigest('r00t'), operator: true },
]);

function run(url: string, authorization?: string): string {
  const req = { url, method: 'GET', headers: { authorization }, resume: () => undefined } as unknown as IncomingMessage;
  let status = 'passed';
  const res = { end: () => undefined } as unknown as ServerResponse;
  const front = new FrontRequest(req, res, routes);
  // After the front door put its own writeHead on the response: this one records the answer.
  res.writeHead = ((code: number, headers: Record<string, unknown>) =>
    (status = `${code} ${String(headers['WWW-Authenticate'])}`)) as never;
  bearerAuth(table)(front, () => {
    const principal = principalOf(req);
    if (principal) status = `passed as ${principal.name}${principal.operator ? ' (operator)' : ''}`;
  });
  return status;
}

describe('bearerAuth', () => {
  it('lets public routes pass without a token', () => expect(run('/health')).toBe('passed'));

  it('asks every other request for the token, on paths no route has too', () => {
    for (const url of ['/capabilities', '/CAPABILITIES', '/capabilities/', '/nope']) expect(run(url)).toBe('401 Bearer');
    expect(run('/capabilities', 'Bearer wrong')).toBe('401 Bearer');
    expect(run('/capabilities', 'bearer s3cret')).toBe('passed as alice');
    expect(run('/nope', 'Bearer s3cret')).toBe('passed as alice');
  });

  it("records each principal's own name on the request", () => {
    expect(run('/capabilities', 'Bearer r00t')).toBe('passed as root (operator)');
    expect(run('/capabilities', 'Basic s3cret')).toBe('401 Bearer');
  });
});
