import type { IncomingHttpHeaders } from 'node:http';
import { browserWallSettings, hostnameOf, isJsonMediaType, judgeRequest, type BrowserWallSettings } from './browser-walls.js';
import type { DaemonConfig } from './daemon-config.js';

const config = (extra: Partial<DaemonConfig> = {}) => ({ host: '127.0.0.1', ...extra }) as DaemonConfig;
const loopback = browserWallSettings(config());
const withUi = browserWallSettings(config({ allowOrigins: ['http://localhost:3000'] }));
const verdictOf = (method: string, headers: IncomingHttpHeaders, settings: BrowserWallSettings = loopback) =>
  judgeRequest(method, headers, settings);
const codeOf = (method: string, headers: IncomingHttpHeaders, settings?: BrowserWallSettings) => {
  const verdict = verdictOf(method, headers, settings);
  return verdict.kind === 'refuse' ? `${verdict.error.getStatus()} ${verdict.error.code}` : verdict.kind;
};
const json = { 'content-type': 'application/json', 'content-length': '2' };

describe('hostnameOf', () => {
  it.each([
    ['localhost:4170', 'localhost'],
    ['LOCALHOST', 'localhost'],
    ['127.0.0.1:80', '127.0.0.1'],
    ['[::1]:4170', '[::1]'],
    ['[::1]', '[::1]'],
    ['rebind.evil.example:4170', 'rebind.evil.example'],
  ])('%s → %s', (host, name) => expect(hostnameOf(host)).toBe(name));
});

describe('isJsonMediaType', () => {
  it.each([
    ['application/json', true],
    ['Application/JSON; charset=utf-8', true],
    ['text/plain', false],
    ['application/x-www-form-urlencoded', false],
    ['multipart/form-data; boundary=x', false],
    ['application/jsonp', false],
    ['', false],
  ])('%s → %s', (type, expected) => expect(isJsonMediaType(type)).toBe(expected));
});

describe('judgeRequest', () => {
  it('passes what a non-browser client sends, without CORS headers', () => {
    expect(verdictOf('GET', { host: '127.0.0.1:4170' })).toEqual({ kind: 'pass' });
    expect(verdictOf('POST', { host: 'localhost:4170', ...json })).toEqual({ kind: 'pass' });
    expect(verdictOf('POST', { host: '[::1]:4170' })).toEqual({ kind: 'pass' });
    expect(verdictOf('DELETE', { host: '127.0.0.1', 'content-length': '0' })).toEqual({ kind: 'pass' });
  });

  it('refuses any foreign origin by default, on every method and route', () => {
    for (const method of ['GET', 'POST', 'DELETE', 'OPTIONS']) {
      expect(codeOf(method, { host: '127.0.0.1:4170', origin: 'http://evil.example', ...json })).toBe('403 origin_forbidden');
    }
    expect(codeOf('GET', { host: '127.0.0.1:4170', origin: 'null' })).toBe('403 origin_forbidden');
    // Another port of the same machine is another origin.
    expect(codeOf('GET', { host: '127.0.0.1:4170', origin: 'http://127.0.0.1:4171' })).toBe('403 origin_forbidden');
  });

  it("lets the daemon's own pages in (Swagger UI posts with its Origin)", () => {
    expect(verdictOf('POST', { host: '127.0.0.1:4170', origin: 'http://127.0.0.1:4170', ...json })).toEqual({ kind: 'pass' });
    expect(verdictOf('POST', { host: 'localhost:4170', origin: 'http://LOCALHOST:4170', ...json })).toEqual({ kind: 'pass' });
  });

  it('refuses a Host that is not a loopback name on a loopback bind (DNS rebinding), even from its own origin', () => {
    expect(codeOf('GET', { host: 'rebind.evil.example:4170' })).toBe('403 origin_forbidden');
    expect(codeOf('POST', { host: 'rebind.evil.example:4170', origin: 'http://rebind.evil.example:4170', ...json })).toBe(
      '403 origin_forbidden',
    );
    expect(codeOf('GET', { host: '10.0.0.5:4170' })).toBe('403 origin_forbidden');
    expect(codeOf('GET', { host: 'localhost.:4170' })).toBe('403 origin_forbidden');
  });

  it('accepts the listed hosts, and any host on a non-loopback bind without a list', () => {
    const listed = browserWallSettings(config({ host: '0.0.0.0', token: 't', allowedHosts: ['turns.internal'] }));
    expect(verdictOf('GET', { host: 'turns.internal:4170' }, listed)).toEqual({ kind: 'pass' });
    expect(verdictOf('GET', { host: 'localhost:4170' }, listed)).toEqual({ kind: 'pass' });
    expect(codeOf('GET', { host: 'rebind.evil.example' }, listed)).toBe('403 origin_forbidden');
    const open = browserWallSettings(config({ host: '0.0.0.0', token: 't' }));
    expect(verdictOf('GET', { host: 'anything.example' }, open)).toEqual({ kind: 'pass' });
  });

  it("answers to the node's own TURNS_NODE_URL name, so peers' forwards are never refused", () => {
    const node = browserWallSettings(
      config({ host: '0.0.0.0', token: 't', allowedHosts: ['lb.internal'], nodeUrl: 'http://10.0.0.5:4170' }),
    );
    expect(verdictOf('GET', { host: '10.0.0.5:4170' }, node)).toEqual({ kind: 'pass' });
  });

  it('answers a preflight from an allowed origin with the CORS headers a client needs', () => {
    const verdict = verdictOf(
      'OPTIONS',
      { host: '127.0.0.1:4170', origin: 'http://localhost:3000', 'access-control-request-method': 'POST' },
      withUi,
    );
    expect(verdict.kind).toBe('preflight');
    const headers = (verdict as { headers: Record<string, string> }).headers;
    expect(headers['access-control-allow-origin']).toBe('http://localhost:3000');
    expect(headers.vary).toBe('Origin');
    expect(headers['access-control-allow-methods']).toBe('GET, POST, DELETE, OPTIONS');
    for (const name of [
      'authorization',
      'content-type',
      'x-qwen-client-id',
      'if-none-match',
      'prefer',
      'last-event-id',
      'idempotency-key',
    ]) {
      expect(headers['access-control-allow-headers'].toLowerCase()).toContain(name);
    }
  });

  it('echoes an allowed origin and exposes the headers a client reads', () => {
    const verdict = verdictOf('GET', { host: '127.0.0.1:4170', origin: 'http://localhost:3000' }, withUi);
    expect(verdict.kind).toBe('pass');
    const headers = (verdict as { headers: Record<string, string> }).headers;
    expect(headers['access-control-allow-origin']).toBe('http://localhost:3000');
    expect(headers.vary).toBe('Origin');
    for (const name of ['ETag', 'Retry-After', 'Preference-Applied', 'X-Turns-Node', 'X-Qwen-Event-Epoch', 'X-RateLimit-Reset']) {
      expect(headers['access-control-expose-headers']).toContain(name);
    }
    expect(codeOf('GET', { host: '127.0.0.1:4170', origin: 'http://localhost:3001' }, withUi)).toBe('403 origin_forbidden');
  });

  it('says Vary: Origin on every answer once web UIs are let in, and answers Private Network Access preflights', () => {
    expect(verdictOf('GET', { host: '127.0.0.1' }, withUi)).toEqual({ kind: 'pass', headers: { vary: 'Origin' } });
    const preflight = verdictOf(
      'OPTIONS',
      {
        host: '127.0.0.1',
        origin: 'http://localhost:3000',
        'access-control-request-method': 'GET',
        'access-control-request-private-network': 'true',
      },
      withUi,
    );
    expect(preflight).toMatchObject({ kind: 'preflight', headers: { 'access-control-allow-private-network': 'true' } });
  });

  it('lets any origin in with "*" (the configuration allows it only with a token), but never `null`', () => {
    const any = browserWallSettings(config({ token: 't', allowOrigins: ['*'] }));
    expect(verdictOf('GET', { host: '127.0.0.1', origin: 'https://ui.example' }, any)).toMatchObject({
      kind: 'pass',
      headers: { 'access-control-allow-origin': 'https://ui.example' },
    });
    expect(codeOf('GET', { host: '127.0.0.1', origin: 'null' }, any)).toBe('403 origin_forbidden');
  });

  it('refuses a body that is not JSON with 415, also when it is empty, keeping the CORS headers', () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      expect(codeOf('POST', { host: '127.0.0.1', 'content-type': type, 'content-length': '0' })).toBe('415 unsupported_media_type');
      expect(codeOf('DELETE', { host: '127.0.0.1', 'content-type': type })).toBe('415 unsupported_media_type');
    }
    expect(codeOf('POST', { host: '127.0.0.1', 'content-length': '3' })).toBe('415 unsupported_media_type');
    expect(codeOf('POST', { host: '127.0.0.1', 'transfer-encoding': 'chunked' })).toBe('415 unsupported_media_type');
    const fromUi = verdictOf('POST', { host: '127.0.0.1', origin: 'http://localhost:3000', 'content-type': 'text/plain' }, withUi);
    expect(fromUi).toMatchObject({ kind: 'refuse', headers: { 'access-control-allow-origin': 'http://localhost:3000' } });
    // GET and HEAD bodies are not read by any route.
    expect(verdictOf('GET', { host: '127.0.0.1', 'content-type': 'text/plain' })).toEqual({ kind: 'pass' });
  });
});
