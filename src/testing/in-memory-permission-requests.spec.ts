import type { PermissionOutcome } from '../wire/session-event.js';
import { InMemoryPermissionRequests } from './in-memory-permission-requests.js';

describe('InMemoryPermissionRequests', () => {
  it('refuses a malformed outcome, as the answer routes do, and leaves the request pending for a real answer', async () => {
    const requests = new InMemoryPermissionRequests();
    const { requestId, answered } = requests.ask('s', 'p', 0, { title: 'rm -rf build' }, {});
    expect(requestId).toBe('r1');
    // What a test in plain JavaScript can pass: no type stops it.
    const malformed: unknown[] = [
      { outcome: 'bogus' },
      { outcome: 'selected' },
      { outcome: 'selected', optionId: 7 },
      { outcome: 'selected', optionId: '' },
      'cancelled',
      null,
      undefined,
    ];
    for (const outcome of malformed) {
      expect(() => requests.answer('s', requestId, outcome as PermissionOutcome)).toThrow(
        /^answerPermission: outcome must be \{outcome:"selected", optionId\} or \{outcome:"cancelled"\} \(got .+\)$/,
      );
    }
    expect(requests.pendingOf('s', 'p')).toHaveLength(1);
    expect(requests.answer('s', requestId, { outcome: 'selected', optionId: 'allow_once' })).toBe('p');
    await expect(answered).resolves.toEqual({ outcome: 'selected', optionId: 'allow_once' });
    expect(requests.pendingOf('s', 'p')).toBeUndefined();
  });
});
