import { RouteTable } from './route-table.js';

const table = new RouteTable([
  { method: 'GET', path: '/health' },
  { method: 'POST', path: 'session/' },
  { method: 'POST', path: 'session/:id/prompt' },
  { method: 'GET', path: 'session/:id/turns/current' },
  { method: 'GET', path: 'session/:id/turns/:promptId' },
  { method: 'DELETE', path: 'session/:id' },
  { method: 'GET', path: 'session/:id/events' },
  { method: 'GET', path: 'docs/*' },
]);

describe('RouteTable', () => {
  it('lists the methods of a path, with HEAD beside GET and OPTIONS everywhere', () => {
    expect(table.allowed('/health')).toEqual(['GET', 'HEAD', 'OPTIONS']);
    expect(table.allowed('/session')).toEqual(['OPTIONS', 'POST']);
    expect(table.allowed('/session/abc/prompt')).toEqual(['OPTIONS', 'POST']);
    expect(table.allowed('/session/abc')).toEqual(['DELETE', 'OPTIONS']);
  });

  it('unites the patterns a path matches', () => {
    expect(table.allowed('/session/abc/turns/current')).toEqual(['GET', 'HEAD', 'OPTIONS']);
    expect(table.allowed('/session/abc/turns/p1')).toEqual(['GET', 'HEAD', 'OPTIONS']);
  });

  it('matches a trailing * against any rest', () => {
    expect(table.allowed('/docs/swagger-ui.css')).toEqual(['GET', 'HEAD', 'OPTIONS']);
    expect(table.allowed('/docs/a/b')).toEqual(['GET', 'HEAD', 'OPTIONS']);
    expect(table.allowed('/docs')).toBeUndefined();
  });

  it('knows no path the frameworks would not route', () => {
    for (const path of ['/', '/nope', '/health/', '//health', '/HEALTH', '/session//prompt', '/session/a/b/prompt', '/session/a/turns']) {
      expect(table.allowed(path)).toBeUndefined();
    }
  });
});

describe('RouteTable.match', () => {
  const routes = new RouteTable([
    { method: 'GET', path: '/health', public: true },
    { method: 'POST', path: 'session/:id/load' },
    { method: 'DELETE', path: 'session/:id' },
    { method: 'GET', path: 'session/:id/turns/current' },
    { method: 'GET', path: 'session/:id/turns/:promptId' },
  ]);

  it('names the route of each method, HEAD answered by GET, static segments first', () => {
    expect(routes.match('/health')?.route('HEAD')).toEqual({ template: '/health', public: true });
    expect(routes.match('/session/s/turns/current')?.route('GET')?.template).toBe('/session/:id/turns/current');
    expect(routes.match('/session/s/turns/p1')?.route('GET')).toEqual({ template: '/session/:id/turns/:promptId', public: false });
    expect(routes.match('/session/s/load')?.route('GET')).toBeUndefined();
  });

  it('hands out the same answer for a path again (no allocation a request)', () => {
    expect(routes.match('/session/a/turns/p1')).toBe(routes.match('/session/b/turns/p2'));
    expect(routes.match('/session/a/turns/current')).toBe(routes.match('/session/b/turns/current'));
  });
});
