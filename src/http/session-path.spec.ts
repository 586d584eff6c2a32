import { isLoadRequest, sessionAddressedBy, sessionIdOf } from './session-path.js';

const ID = '0b9e3f6c-8a1d-4c2e-9f00-1234567890ab';

describe('sessionIdOf', () => {
  it.each([
    [`/session/${ID}`, ID],
    [`/session/${ID}/turns/current`, ID],
    [`/session/${ID}/turns/current?waitMs=100`, ID],
    // The turn list is forwarded to the session's owner like every session route.
    [`/session/${ID}/turns?state=running&limit=5`, ID],
    [`/session/${ID}?x=1`, ID],
    [`/session/${ID.toUpperCase()}/events`, ID.toUpperCase()],
    // The peer's unscoped answer to a request for approval goes to the session its id names.
    [`/permission/${ID}.0123456789abcdef`, ID],
    [`/permission/${ID}.0123456789abcdef?x=1`, ID],
  ])('reads the session of %s', (url, expected) => {
    expect(sessionIdOf(url)).toBe(expected);
  });

  it.each([
    '/session',
    '/session/',
    '/session?x',
    '/health',
    '/capabilities',
    '/session/not-a-uuid/turns/current',
    `/sessions/${ID}`,
    `/x/session/${ID}`,
    `/session/${ID}x`,
    `/session/%2e%2e/turns`,
    '/permission/req-1',
    `/permission/${ID}`,
    undefined,
  ])('addresses no session: %s', (url) => {
    expect(sessionIdOf(url)).toBeUndefined();
  });
});

describe('isLoadRequest', () => {
  it('is POST /session/:id/load or /resume only', () => {
    expect(isLoadRequest('POST', `/session/${ID}/load`)).toBe(true);
    expect(isLoadRequest('POST', `/session/${ID}/load?x=1`)).toBe(true);
    expect(isLoadRequest('POST', `/session/${ID}/resume`)).toBe(true);
    expect(isLoadRequest('POST', `/session/${ID}/resumes`)).toBe(false);
    expect(isLoadRequest('GET', `/session/${ID}/load`)).toBe(false);
    expect(isLoadRequest('POST', `/session/${ID}/loader`)).toBe(false);
    expect(isLoadRequest('POST', `/session/${ID}/prompt`)).toBe(false);
  });
});

describe('sessionAddressedBy', () => {
  const id = '0b7e8a52-2f0c-4a57-9d6e-6f1f4d1c0a11';
  const requestId = `${id}.0123456789abcdef`;

  it('reads the canonical form as sessionIdOf does', () => {
    expect(sessionAddressedBy(`/session/${id}/turns/current`)).toEqual({ sessionId: id });
    expect(sessionAddressedBy(`/permission/${requestId}`)).toEqual({ sessionId: id, requestId });
  });

  it('reads a prefix in any case and a percent-encoded id, as the frameworks route them', () => {
    expect(sessionAddressedBy(`/Session/%30${id.slice(1)}/prompt`)).toEqual({ sessionId: id });
    expect(sessionAddressedBy(`/%73ession/${id}/turns/current`)).toEqual({ sessionId: id });
    expect(sessionAddressedBy(`/PERMISSION/${encodeURIComponent(requestId).replace('0', '%30')}`)).toEqual({ sessionId: id, requestId });
  });

  it('is undefined for no session, an id that is no UUID, or one that does not decode', () => {
    for (const path of ['/session', '/sessions/x', `/session/${id}x/turns`, '/session/%E0/turns', `/permission/${id}`, '/health']) {
      expect({ path, addressed: sessionAddressedBy(path) }).toEqual({ path, addressed: undefined });
    }
  });
});
