import { judgeMethod, type GateVerdict } from './request-gate.js';
import { RouteTable } from './route-table.js';

const routes = new RouteTable([
  { method: 'GET', path: 'health' },
  { method: 'POST', path: 'session' },
  { method: 'GET', path: 'session/:id/turns/:promptId' },
]);
const judge = (method: string, url: string, headers = {}) =>
  describeVerdict(judgeMethod(method, routes.allowed(url.split('?')[0]!), headers, 1_000));
function describeVerdict(verdict: GateVerdict): string {
  if (verdict.kind === 'pass') return 'pass';
  if (verdict.kind === 'options') return `204 Allow: ${verdict.allow}`;
  const allow = verdict.headers?.allow;
  return `${verdict.error.getStatus()} ${verdict.error.code}${allow ? ` Allow: ${allow}` : ''}${verdict.headers?.connection ? ' close' : ''}`;
}

describe('judgeMethod', () => {
  it.each([
    ['GET', '/health', 'pass'],
    ['HEAD', '/health', 'pass'],
    ['GET', '/health?x=1', 'pass'],
    ['POST', '/session', 'pass'],
    ['GET', '/session/s/turns/p?waitMs=10', 'pass'],
    ['QUERY', '/health', '405 method_not_allowed Allow: GET, HEAD, OPTIONS'],
    ['DELETE', '/session', '405 method_not_allowed Allow: OPTIONS, POST'],
    ['OPTIONS', '/session/s/turns/p', '204 Allow: GET, HEAD, OPTIONS'],
    ['OPTIONS', '/nope', '404 not_found'],
    ['QUERY', '/nope', '404 not_found'],
    // Unknown paths with a method the frameworks route get the frameworks' own (JSON) 404.
    ['GET', '/nope', 'pass'],
    ['DELETE', '/health/', 'pass'],
  ])('%s %s → %s', (method, url, expected) => expect(judge(method, url)).toBe(expected));

  it('refuses a declared Content-Length over the limit before anything else, closing the connection', () => {
    expect(judge('POST', '/session', { 'content-length': '1001' })).toBe('413 payload_too_large close');
    expect(judge('QUERY', '/nope', { 'content-length': '5000000' })).toBe('413 payload_too_large close');
    expect(judge('POST', '/session', { 'content-length': '1000' })).toBe('pass');
  });
});
