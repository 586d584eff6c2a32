import { permissionRequestId, sessionOfRequestId } from './permission-request-id.js';

const SESSION = '0b7c5a3e-8f7e-4c52-9d0c-3c1f2e4a5b6c';

describe('permission request ids', () => {
  it('name their session', () => {
    expect(sessionOfRequestId(permissionRequestId(SESSION, '0123456789abcdef'))).toBe(SESSION);
  });

  it.each([
    ['', 'empty'],
    ['perm-1', 'not ours'],
    [`${SESSION}.0123456789abcde`, 'short suffix'],
    [`${SESSION}.0123456789abcdeg`, 'not hex'],
    [`${SESSION}-0123456789abcdef`, 'wrong separator'],
    [`${SESSION.replace('0b', 'zz')}.0123456789abcdef`, 'not a UUID'],
    [`${SESSION}.0123456789abcdef0`, 'too long'],
  ])('name no session for %j (%s)', (requestId) => {
    expect(sessionOfRequestId(requestId)).toBeUndefined();
  });
});
