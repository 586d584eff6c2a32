import { anonymousKey, rateLimitKey } from './rate-limit-key.js';

describe('rateLimitKey', () => {
  it('is one key per principal and issued client id', () => {
    const keys = new Set([
      rateLimitKey('alice', 'client_1'),
      rateLimitKey('alice', 'client_2'),
      rateLimitKey('bob', 'client_1'),
      rateLimitKey(undefined, 'client_1'),
      anonymousKey('alice'),
      anonymousKey('bob'),
      anonymousKey(undefined),
    ]);
    expect(keys.size).toBe(7);
    expect(rateLimitKey('alice', 'client_1')).toBe(rateLimitKey('alice', 'client_1'));
  });

  it('without a client id is the principal anonymous key', () => {
    expect(rateLimitKey('alice', undefined)).toBe(anonymousKey('alice'));
  });

  it('never carries the client id itself (a secret), only its digest', () => {
    expect(rateLimitKey('alice', 'client_4f0c3a')).not.toContain('client_4f0c3a');
  });

  it('cannot be forged across principals by a name that looks like a key', () => {
    expect(rateLimitKey('a","b', undefined)).not.toBe(rateLimitKey('a', 'b'));
    expect(anonymousKey('null')).not.toBe(anonymousKey(undefined));
  });
});
