import { caps, header, status, stubFetch } from '../../test/support/stub-fetch.js';
import { TurnsApiError, TurnWaitTimeoutError, TurnWindowExpiredError } from './errors.js';
import { TurnsClient } from './turns-client.js';

describe('TurnsClient', () => {
  it('lists turns page by page, passing each nextPageToken back with the same filter', async () => {
    const { fetch, calls } = stubFetch([
      { status: 200, body: { turns: [status('completed'), status('error')], nextPageToken: 'tok 1' } },
      { status: 200, body: { turns: [status('completed', { promptId: 'q' })] } },
    ]);
    const client = new TurnsClient({ baseUrl: 'http://daemon', fetch });
    const pages = [];
    for await (const page of client.listTurns('s', { state: ['completed', 'error'], limit: 2 })) pages.push(page);
    expect(pages.map((page) => page.turns.length)).toEqual([2, 1]);
    expect(calls.map((call) => call.url)).toEqual([
      'http://daemon/session/s/turns?state=completed%2Cerror&limit=2',
      'http://daemon/session/s/turns?state=completed%2Cerror&limit=2&pageToken=tok+1',
    ]);
    const { fetch: bare, calls: one } = stubFetch([{ status: 200, body: { turns: [] } }]);
    expect(await new TurnsClient({ baseUrl: 'http://daemon', fetch: bare }).listTurnsPage('s')).toEqual({ turns: [] });
    expect(one[0]!.url).toBe('http://daemon/session/s/turns');
  });
});

describe('TurnsClient.waitForTurn', () => {
  afterEach(() => jest.useRealTimers());

  it('long-polls when the daemon can hold requests: one request per change, ETag sent back', async () => {
    const { fetch, calls } = stubFetch([
      caps(['session_turn_wait']),
      { status: 200, body: status('running', { startedAt: 2 }), headers: { etag: '"r"' } },
      { status: 304, headers: { etag: '"r"' } },
      { status: 200, body: status('completed', { endedAt: 3, resultText: 'hi' }), headers: { etag: '"c"' } },
    ]);
    const seen: string[] = [];
    const client = new TurnsClient({ baseUrl: 'http://daemon', fetch });
    const result = await client.waitForTurn('s', 'p', { onUpdate: (s) => seen.push(s.state) });
    expect(result).toMatchObject({ state: 'completed', resultText: 'hi' });
    expect(seen).toEqual(['running', 'completed']);
    // The first answer comes at once (a held request without If-None-Match would wait for the terminal);
    // every later one is held until the status changes.
    expect(calls[1]!.url).not.toContain('waitMs');
    expect(calls.slice(2).every((c) => /\?waitMs=\d+$/.test(c.url) && header(c.init, 'if-none-match') === '"r"')).toBe(true);
  });

  it('polls, not long-polls, a turn waiting on an approval when no ETag reaches it (a held request would answer at once)', async () => {
    jest.useFakeTimers();
    const request = { requestId: 's.0123456789abcdef', kind: 'permission', createdAt: 'x', action: {}, options: [] };
    const waiting = { status: 200, body: status('running', { pendingInteractions: [request] }), headers: { 'retry-after': '2' } };
    const { fetch, calls } = stubFetch([
      caps(['session_turn_wait']),
      waiting,
      waiting,
      { status: 200, body: status('completed', { endedAt: 3 }) },
    ]);
    const client = new TurnsClient({ baseUrl: 'http://daemon', fetch });
    const result = client.waitForTurn('s', 'p');
    await jest.advanceTimersByTimeAsync(1_000);
    expect(calls).toHaveLength(2); // the answer that waits is followed by a pause (Retry-After), not a request at once
    for (let i = 0; i < 10 && calls.length < 4; i += 1) await jest.advanceTimersByTimeAsync(5_000);
    await expect(result).resolves.toMatchObject({ state: 'completed' });
  });

  it('polls with If-None-Match against a daemon without long-poll, honoring Retry-After with backoff', async () => {
    jest.useFakeTimers();
    const { fetch, calls } = stubFetch([
      caps(['session_turn_status']),
      { status: 200, body: status('queued'), headers: { etag: '"q"', 'retry-after': '2' } },
      { status: 304, headers: { 'retry-after': '2' } },
      { status: 200, body: status('completed', { endedAt: 3 }), headers: { etag: '"c"' } },
    ]);
    const client = new TurnsClient({ baseUrl: 'http://daemon', fetch });
    const result = client.waitForTurn('s', 'p');
    for (let i = 0; i < 10 && calls.length < 4; i += 1) await jest.advanceTimersByTimeAsync(5_000);
    await expect(result).resolves.toMatchObject({ state: 'completed' });
    expect(calls.slice(1).every((c) => !c.url.includes('waitMs'))).toBe(true);
    expect(header(calls[2]!.init, 'if-none-match')).toBe('"q"');
  });

  it('waits out a 503 that carries Retry-After (a cluster failing over, too many held requests), and gives up on one without', async () => {
    jest.useFakeTimers();
    const unavailable = { status: 503, body: { error: 'x', code: 'cluster_unavailable' }, headers: { 'retry-after': '1' } };
    const { fetch, calls } = stubFetch([
      caps(['session_turn_wait']),
      unavailable,
      unavailable,
      { status: 200, body: status('completed', { endedAt: 3 }), headers: { etag: '"c"' } },
    ]);
    const client = new TurnsClient({ baseUrl: 'http://daemon', fetch });
    const result = client.waitForTurn('s', 'p');
    await jest.advanceTimersByTimeAsync(799);
    expect(calls).toHaveLength(2);
    for (let i = 0; i < 10 && calls.length < 4; i += 1) await jest.advanceTimersByTimeAsync(2_000);
    await expect(result).resolves.toMatchObject({ state: 'completed' });

    const { fetch: plain } = stubFetch([caps(['session_turn_wait']), { status: 503, body: { error: 'x', code: 'internal' } }]);
    await expect(new TurnsClient({ baseUrl: 'http://daemon', fetch: plain }).waitForTurn('s', 'p')).rejects.toMatchObject({ status: 503 });
  });

  it('throws TurnWindowExpiredError for a 404 after the prompt was seen, and TurnsApiError before', async () => {
    const notFound = { status: 404, body: { error: 'Prompt not found', code: 'prompt_not_found' } };
    const seen = stubFetch([caps(['session_turn_wait']), { status: 200, body: status('running'), headers: { etag: '"r"' } }, notFound]);
    await expect(new TurnsClient({ baseUrl: 'http://d', fetch: seen.fetch }).waitForTurn('s', 'p')).rejects.toBeInstanceOf(
      TurnWindowExpiredError,
    );
    const never = stubFetch([caps(['session_turn_wait']), notFound]);
    await expect(new TurnsClient({ baseUrl: 'http://d', fetch: never.fetch }).waitForTurn('s', 'p')).rejects.toBeInstanceOf(TurnsApiError);
  });

  it('throws TurnWaitTimeoutError with the last status when time runs out', async () => {
    jest.useFakeTimers();
    const answers = [
      caps(['session_turn_status']),
      ...Array.from({ length: 50 }, () => ({ status: 200, body: status('running'), headers: { 'retry-after': '1' } })),
    ];
    const { fetch } = stubFetch(answers);
    const result = new TurnsClient({ baseUrl: 'http://d', fetch }).waitForTurn('s', 'p', { timeoutMs: 3_000 }).catch((e: unknown) => e);
    await jest.advanceTimersByTimeAsync(10_000);
    const error = await result;
    expect(error).toBeInstanceOf(TurnWaitTimeoutError);
    expect((error as TurnWaitTimeoutError).lastStatus).toMatchObject({ state: 'running' });
  });

  it('runs out of time, not into an error, when the daemon stays unavailable (503 with Retry-After) to the end', async () => {
    jest.useFakeTimers();
    const unavailable = { status: 503, body: { error: 'x', code: 'too_many_waiters' }, headers: { 'retry-after': '1' } };
    const { fetch, calls } = stubFetch([
      caps(['session_turn_wait']),
      { status: 200, body: status('running'), headers: { etag: '"r"' } },
      ...Array.from({ length: 20 }, () => unavailable),
    ]);
    const result = new TurnsClient({ baseUrl: 'http://d', fetch }).waitForTurn('s', 'p', { timeoutMs: 3_000 }).catch((e: unknown) => e);
    await jest.advanceTimersByTimeAsync(10_000);
    const error = await result;
    expect(error).toBeInstanceOf(TurnWaitTimeoutError);
    expect((error as TurnWaitTimeoutError).lastStatus).toMatchObject({ state: 'running' });
    expect(calls.length).toBeLessThan(8); // it waited as told between tries
  });

  it('stops waiting when its signal aborts', async () => {
    jest.useFakeTimers();
    const { fetch } = stubFetch([caps([]), { status: 200, body: status('running'), headers: { 'retry-after': '1' } }]);
    const controller = new AbortController();
    const result = new TurnsClient({ baseUrl: 'http://d', fetch })
      .waitForTurn('s', 'p', { signal: controller.signal })
      .catch((e: unknown) => e);
    await jest.advanceTimersByTimeAsync(10);
    controller.abort(new Error('stop'));
    await expect(result).resolves.toMatchObject({ message: 'stop' });
  });
  it('holds a request no longer than the advertised maxWaitMs, and without one advertised polls', async () => {
    const answers = () => [
      { status: 200, body: status('running', { startedAt: 2 }), headers: { etag: '"r"' } },
      { status: 200, body: status('completed', { endedAt: 3, resultText: 'hi' }), headers: { etag: '"c"' } },
    ];
    const bounded = stubFetch([caps(['session_turn_wait'], { maxWaitMs: 1_234 }), ...answers()]);
    await new TurnsClient({ baseUrl: 'http://daemon', fetch: bounded.fetch }).waitForTurn('s', 'p');
    expect(bounded.calls[2]!.url).toMatch(/\?waitMs=1234$/);
    jest.useFakeTimers();
    const unbounded = stubFetch([caps(['session_turn_wait'], {}), ...answers()]);
    const settled = new TurnsClient({ baseUrl: 'http://daemon', fetch: unbounded.fetch }).waitForTurn('s', 'p', { timeoutMs: 60_000 });
    await jest.advanceTimersByTimeAsync(10_000);
    await settled;
    expect(unbounded.calls.slice(1).map((call) => call.url)).toEqual([
      'http://daemon/session/s/turns/p',
      'http://daemon/session/s/turns/p',
    ]);
  });
});
