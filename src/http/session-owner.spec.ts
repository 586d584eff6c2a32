import { mayAccessSession } from './session-owner.js';

describe('mayAccessSession', () => {
  const alice = { name: 'alice', operator: false };
  const bob = { name: 'bob', operator: false };
  const root = { name: 'root', operator: true };

  it('lets the owner in and keeps another principal out', () => {
    expect(mayAccessSession('alice', alice)).toBe(true);
    expect(mayAccessSession('alice', bob)).toBe(false);
  });

  it('lets an operator into every session, owned or not', () => {
    expect(mayAccessSession('alice', root)).toBe(true);
    expect(mayAccessSession(undefined, root)).toBe(true);
  });

  it('shows a session with no owner to a request with no principal only (besides operators)', () => {
    expect(mayAccessSession(undefined, undefined)).toBe(true);
    expect(mayAccessSession(undefined, alice)).toBe(false);
    expect(mayAccessSession('alice', undefined)).toBe(false);
  });
});
