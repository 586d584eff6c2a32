import type { PermissionOutcome } from '../wire/session-event.js';
import { InMemoryPermissionRequests } from './in-memory-permission-requests.js';

describe('InMemoryPermissionRequests', () => {
  const live = { hasSession: (sessionId: string) => sessionId === 's' };

  it('refuses a malformed outcome, as the answer routes do, and leaves the request pending for a real answer', async () => {
    const requests = new InMemoryPermissionRequests(live, () => 0);
    const { requestId, answered } = requests.ask({ sessionId: 's', promptId: 'p' }, { title: 'rm -rf build' }, {});
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
    expect(requests.broker.pendingOf('s', 'p')).toHaveLength(1);
    expect(requests.answer('s', requestId, { outcome: 'selected', optionId: 'allow_once' })).toBe(true);
    await expect(answered).resolves.toEqual({ outcome: 'selected', optionId: 'allow_once' });
    expect(requests.broker.pendingOf('s', 'p')).toBeUndefined();
  });

  it("holds each request by the broker's own rules: bounded as an agent's, the 17th of a session cancelled at once", async () => {
    const requests = new InMemoryPermissionRequests(live, () => 0);
    const long = 'x'.repeat(5_000);
    requests.ask({ sessionId: 's', promptId: 'p' }, { title: long }, {});
    const [item] = requests.broker.pendingOf('s', 'p')!;
    expect(item!.action.title).toHaveLength(4_096);
    for (let i = 0; i < 15; i += 1) requests.ask({ sessionId: 's', promptId: 'p' }, {}, {});
    const over = requests.ask({ sessionId: 's', promptId: 'p' }, {}, {});
    await expect(over.answered).resolves.toEqual({ outcome: 'cancelled' });
    expect(requests.broker.pendingOf('s', 'p')).toHaveLength(16);
    expect(requests.answer('s', over.requestId, { outcome: 'cancelled' })).toBe(false);
  });
});
