import { caps, header, status, stubFetch } from '../../test/support/stub-fetch.js';
import type { PendingInteraction } from '../turns/turn-status.js';
import type { PermissionRequestContext } from './client-options.js';
import { TurnsApiError } from './errors.js';
import { TurnsClient } from './turns-client.js';

/** A pending request as the daemon shows it. */
const request = (requestId: string, title = 'Run echo ran > marker.txt'): PendingInteraction => ({
  requestId,
  kind: 'permission',
  createdAt: '2026-12-03T12:00:00.000Z',
  action: { type: 'execute', title },
  options: [
    { optionId: 'proceed_once', kind: 'allow_once' },
    { optionId: 'reject', kind: 'reject_once' },
  ],
});
const running = (...pending: PendingInteraction[]) =>
  status('running', { startedAt: 2, ...(pending.length ? { pendingInteractions: pending } : {}) });

describe('TurnsClient permissions', () => {
  it('answers a request with its outcome, ids encoded, and throws the structured error of a refusal', async () => {
    const { fetch, calls } = stubFetch([
      { status: 200, body: {} },
      { status: 404, body: { error: 'Permission request not found', code: 'permission_not_found' } },
    ]);
    const client = new TurnsClient({ baseUrl: 'http://daemon', fetch, clientId: 'c1' });
    await expect(client.respondToPermission('s', 'r/1', { outcome: 'selected', optionId: 'proceed_once' })).resolves.toBeUndefined();
    expect(calls[0]!.url).toBe('http://daemon/session/s/permission/r%2F1');
    expect(calls[0]!.init.method).toBe('POST');
    expect(JSON.parse(calls[0]!.init.body as string)).toEqual({ outcome: { outcome: 'selected', optionId: 'proceed_once' } });
    expect(header(calls[0]!.init, 'x-qwen-client-id')).toBe('c1');
    const refused = await client.respondToPermission('s', 'r1', { outcome: 'cancelled' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TurnsApiError);
    expect(refused).toMatchObject({ status: 404, code: 'permission_not_found' });
    // An answer is not retried: a 404 after a lost first answer would hide that it won.
    expect(calls).toHaveLength(2);
  });

  it("lists a session's pending permission requests from its status, and none when it has none", async () => {
    const question = { requestId: 'q', kind: 'ask_user_question', createdAt: 'x', questions: [], options: [] };
    const { fetch, calls } = stubFetch([
      { status: 200, body: { sessionId: 's', pendingInteractionCount: 2, pendingInteractions: [request('r1'), question] } },
      { status: 200, body: { sessionId: 's' } },
    ]);
    const client = new TurnsClient({ baseUrl: 'http://daemon', fetch });
    expect(await client.listPermissionRequests('s')).toEqual([request('r1')]);
    expect(calls[0]!.url).toBe('http://daemon/session/s/status');
    expect(await client.listPermissionRequests('s')).toEqual([]);
  });
});

describe('TurnsClient.waitForTurn onPermissionRequest', () => {
  it('reports each request once, as it appears, and ends its signal once it is gone; the rest end with the wait', async () => {
    const { fetch } = stubFetch([
      caps(['session_turn_wait']),
      { status: 200, body: running(), headers: { etag: '"0"' } },
      { status: 200, body: running(request('r1')), headers: { etag: '"1"' } },
      { status: 200, body: running(request('r1'), request('r2')), headers: { etag: '"2"' } },
      { status: 200, body: running(request('r2')), headers: { etag: '"3"' } },
      { status: 200, body: status('completed', { endedAt: 3 }), headers: { etag: '"c"' } },
    ]);
    const reported: Array<{ requestId: string; context: PermissionRequestContext; abortedAt?: number }> = [];
    let reads = 0;
    const client = new TurnsClient({ baseUrl: 'http://daemon', fetch });
    const settled = await client.waitForTurn('s', 'p', {
      onUpdate: () => {
        reads += 1;
      },
      onPermissionRequest: (pending, context) => {
        const entry: (typeof reported)[number] = { requestId: pending.requestId, context };
        context.signal.addEventListener('abort', () => (entry.abortedAt = reads));
        reported.push(entry);
      },
    });
    expect(settled.state).toBe('completed');
    expect(reported.map((entry) => [entry.requestId, entry.context.sessionId, entry.context.promptId])).toEqual([
      ['r1', 's', 'p'],
      ['r2', 's', 'p'],
    ]);
    // r1 was answered (gone at the 4th read); r2 ended with the turn (the 5th).
    expect(reported.map((entry) => entry.abortedAt)).toEqual([4, 5]);
  });

  it('fails the wait, held request and all, when the listener rejects; not when it stops on its own signal', async () => {
    const held = (url: string, init: RequestInit) =>
      new Promise<Response>((_, reject) => init.signal!.addEventListener('abort', () => reject(init.signal!.reason)));
    const script = stubFetch([caps(['session_turn_wait']), { status: 200, body: running(request('r1')), headers: { etag: '"1"' } }]);
    const fetch = ((url: string, init: RequestInit) =>
      script.calls.length < 2 ? script.fetch(url, init) : held(url, init)) as typeof globalThis.fetch;
    const broken = new Error('cannot ask');
    let fail!: (error: unknown) => void;
    const waiting = new TurnsClient({ baseUrl: 'http://daemon', fetch })
      .waitForTurn('s', 'p', { onPermissionRequest: () => new Promise((_, reject) => (fail = reject)) })
      .catch((error: unknown) => error);
    await new Promise((resolve) => setImmediate(resolve));
    fail(broken);
    expect(await waiting).toBe(broken);

    const stopping = stubFetch([
      caps(['session_turn_wait']),
      { status: 200, body: running(request('r1')), headers: { etag: '"1"' } },
      { status: 200, body: running(), headers: { etag: '"2"' } },
      { status: 200, body: status('cancelled', { endedAt: 3 }), headers: { etag: '"c"' } },
    ]);
    const result = await new TurnsClient({ baseUrl: 'http://daemon', fetch: stopping.fetch }).waitForTurn('s', 'p', {
      onPermissionRequest: (_, { signal }) =>
        new Promise((_, reject) => signal.addEventListener('abort', () => reject(new DOMException('stopped', 'AbortError')))),
    });
    expect(result.state).toBe('cancelled');
  });
});
