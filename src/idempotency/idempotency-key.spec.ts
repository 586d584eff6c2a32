import { ApiException } from '../errors/api-exception.js';
import { idempotencyScope, parseIdempotencyKey } from './idempotency-key.js';

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof ApiException ? [error.getStatus(), error.toBody().code] : error;
  }
  return undefined;
};

describe('parseIdempotencyKey', () => {
  it('takes 1 to 255 visible ASCII characters as they are', () => {
    expect(parseIdempotencyKey('a')).toBe('a');
    expect(parseIdempotencyKey('"8e03978e-40d5-43e8-bc93-6894a57f9324"')).toBe('"8e03978e-40d5-43e8-bc93-6894a57f9324"');
    expect(parseIdempotencyKey('~'.repeat(255))).toHaveLength(255);
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
  });

  it.each([[''], ['x'.repeat(256)], ['with space'], ['tab\t'], ['é'], ['\u007f']])('refuses %j with 400 invalid_idempotency_key', (raw) => {
    expect(codeOf(() => parseIdempotencyKey(raw))).toEqual([400, 'invalid_idempotency_key']);
  });

  it('refuses a key sent twice', () => {
    expect(codeOf(() => parseIdempotencyKey(['a', 'b']))).toEqual([400, 'invalid_idempotency_key']);
  });
});

describe('idempotencyScope', () => {
  it('keeps keys of other sessions, principals, workspaces, client ids and routes apart', () => {
    const keys = new Set([
      idempotencyScope.prompt('s1', undefined, 'k'),
      idempotencyScope.prompt('s2', undefined, 'k'),
      idempotencyScope.prompt('s1', 'client_a', 'k'),
      idempotencyScope.session(undefined, 's1', undefined, 'k'),
      idempotencyScope.session(undefined, '/w', 'client_a', 'k'),
      idempotencyScope.session('alice', '/w', 'client_a', 'k'),
      idempotencyScope.session('bob', '/w', 'client_a', 'k'),
      idempotencyScope.session('', '/w', 'client_a', 'k'),
    ]);
    expect(keys.size).toBe(8);
    expect(idempotencyScope.prompt('s1', 'c', 'k')).toBe(idempotencyScope.prompt('s1', 'c', 'k'));
  });
});
