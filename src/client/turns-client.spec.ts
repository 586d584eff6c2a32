import { TurnsApiError, TurnWaitTimeoutError, TurnWindowExpiredError } from './errors.js';
import { isRetryableAdmission, pollDelayMs, TurnsClient } from './turns-client.js';

type Answer = { status: number; body?: unknown; headers?: Record<string, string> };

/** A fetch that answers from a script and records what it was asked. */
function stubFetch(answers: Array<Answer | ((url: string, init: RequestInit) => Answer)>) {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const fetch = async (url: string | URL | Request, init: RequestInit = {}) => {
    calls.push({ url: String(url), init });
    const next = answers.shift();
    if (!next) throw new Error(`unexpected request ${String(url)}`);
    const answer = typeof next === 'function' ? next(String(url), init) : next;
    return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), { status: answer.status, headers: answer.headers });
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

const caps = (features: string[], limits: object = { maxWaitMs: 30_000 }) => ({
  status: 200,
  body: { v: 1, features, workspaceCwd: '/', limits, workspaces: [] },
});
const status = (state: string, extra: object = {}) => ({ sessionId: 's', promptId: 'p', state, queuedAt: 1, ...extra });
const header = (init: RequestInit, name: string) => new Headers(init.headers).get(name);

describe('TurnsClient', () => {
  afterEach(() => jest.useRealTimers());

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

  it('sends the token and the client id, encodes path ids, and turns error bodies into TurnsApiError', async () => {
    const { fetch, calls } = stubFetch([
      { status: 404, body: { error: 'Session not found', code: 'session_not_found', sessionId: 'a/b' } },
    ]);
    const client = new TurnsClient({ baseUrl: 'http://daemon/', token: 't', clientId: 'client_1', fetch });
    const error = await client.getCurrent('a/b').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TurnsApiError);
    expect(error).toMatchObject({ status: 404, code: 'session_not_found', body: { sessionId: 'a/b' } });
    expect(calls[0]!.url).toBe('http://daemon/session/a%2Fb/turns/current');
    expect(header(calls[0]!.init, 'authorization')).toBe('Bearer t');
    expect(header(calls[0]!.init, 'x-qwen-client-id')).toBe('client_1');
  });

  it('reconnects to the event stream with the last id and the epoch that stream named', async () => {
    const calls: RequestInit[] = [];
    const frame = 'retry: 1\nid: 3\nevent: turn_complete\ndata: {"id":3,"v":1,"type":"turn_complete","data":{}}\n\n';
    const bodies = [frame];
    const fetch = async (_url: string | URL | Request, init: RequestInit = {}) => {
      calls.push(init);
      const body = bodies.shift();
      if (body === undefined) return new Response(JSON.stringify({ code: 'session_not_found' }), { status: 404 });
      return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream', 'x-qwen-event-epoch': 'e1' } });
    };
    const client = new TurnsClient({ baseUrl: 'http://daemon', fetch: fetch as typeof globalThis.fetch });
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of client.events('s')) seen.push(event.type);
    })();
    await expect(reading).rejects.toMatchObject({ status: 404 });
    expect(seen).toEqual(['turn_complete']);
    expect(header(calls[0]!, 'x-qwen-event-epoch')).toBeNull();
    expect(header(calls[1]!, 'last-event-id')).toBe('3');
    expect(header(calls[1]!, 'x-qwen-event-epoch')).toBe('e1');
  });

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

  it('retries a read that could not reach the daemon or met a 503 with Retry-After, up to `retries` times', async () => {
    jest.useFakeTimers();
    const unreachable = () => {
      throw new TypeError('fetch failed');
    };
    const busy = { status: 503, body: { error: 'x', code: 'too_many_waiters' }, headers: { 'retry-after': '1' } };
    const { fetch, calls } = stubFetch([unreachable, busy, { status: 200, body: status('queued') }]);
    const client = new TurnsClient({ baseUrl: 'http://daemon', fetch });
    const answer = client.getTurn('s', 'p');
    await jest.advanceTimersByTimeAsync(5_000);
    await expect(answer).resolves.toMatchObject({ state: 'queued' });
    expect(calls).toHaveLength(3);

    const once = stubFetch([unreachable, unreachable]);
    const strict = new TurnsClient({ baseUrl: 'http://daemon', fetch: once.fetch, retries: 1 });
    const failed = strict.getTurn('s', 'p').catch((e: unknown) => e);
    await jest.advanceTimersByTimeAsync(5_000);
    await expect(failed).resolves.toBeInstanceOf(TypeError);
    expect(once.calls).toHaveLength(2);
  });

  it('never sends a prompt twice on its own: a write without an Idempotency-Key is not retried', async () => {
    const { fetch, calls } = stubFetch([
      () => {
        throw new TypeError('fetch failed');
      },
    ]);
    const client = new TurnsClient({ baseUrl: 'http://daemon', fetch, retries: 5 });
    await expect(client.prompt('s', 'hi', { idempotencyKey: false })).rejects.toBeInstanceOf(TypeError);
    expect(calls).toHaveLength(1);
  });

  it('gives a request `requestTimeoutMs` (plus the wait of a held one); event streams are not limited', async () => {
    const signals: Array<AbortSignal | undefined> = [];
    const { fetch } = stubFetch([
      caps(['session_turn_wait']),
      (_url, init) => {
        signals.push(init.signal ?? undefined);
        return { status: 200, body: status('running'), headers: { etag: '"r"' } };
      },
      (_url, init) => {
        signals.push(init.signal ?? undefined);
        return { status: 200, body: status('completed', { endedAt: 3 }), headers: { etag: '"c"' } };
      },
    ]);
    const client = new TurnsClient({ baseUrl: 'http://daemon', fetch, requestTimeoutMs: 50, retries: 0 });
    await client.waitForTurn('s', 'p');
    expect(signals.every((signal) => signal instanceof AbortSignal)).toBe(true);
    // A request that does not answer in time is aborted.
    const hanging = new TurnsClient({
      baseUrl: 'http://daemon',
      requestTimeoutMs: 20,
      retries: 0,
      fetch: ((_url: string, init: RequestInit) =>
        new Promise((_resolve, reject) =>
          init.signal!.addEventListener('abort', () => reject(init.signal!.reason)),
        )) as typeof globalThis.fetch,
    });
    await expect(hanging.getTurn('s', 'p')).rejects.toMatchObject({ name: 'TimeoutError' });
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
});

describe('TurnsClient admission (Idempotency-Key)', () => {
  afterEach(() => jest.useRealTimers());
  const admitted = { status: 202, body: { promptId: 'p', lastEventId: 1, eventEpoch: 'e' } };

  it('sends a fresh key on every prompt() and createSession() by default', async () => {
    const { fetch, calls } = stubFetch([admitted, admitted, { status: 200, body: { sessionId: 's' } }]);
    const client = new TurnsClient({ baseUrl: 'http://d', fetch });
    await client.prompt('s', 'one');
    await client.prompt('s', 'one');
    await client.createSession();
    const keys = calls.map((c) => header(c.init, 'idempotency-key'));
    expect(keys.every((k) => typeof k === 'string' && /^[!-~]{1,255}$/.test(k))).toBe(true);
    expect(new Set(keys).size).toBe(3);
  });

  it('reuses its key on its own retries: after a network failure and a 409 in flight', async () => {
    jest.useFakeTimers();
    const { fetch, calls } = stubFetch([
      () => {
        throw new TypeError('fetch failed');
      },
      { status: 409, body: { error: 'x', code: 'idempotency_key_in_flight' }, headers: { 'retry-after': '1' } },
      admitted,
    ]);
    const result = new TurnsClient({ baseUrl: 'http://d', fetch }).prompt('s', 'hello', { idempotencyKey: 'mine' });
    await jest.advanceTimersByTimeAsync(10_000);
    await expect(result).resolves.toEqual(admitted.body);
    expect(calls.map((c) => header(c.init, 'idempotency-key'))).toEqual(['mine', 'mine', 'mine']);
    expect(calls.map((c) => c.init.body)).toEqual(Array(3).fill(JSON.stringify({ prompt: [{ type: 'text', text: 'hello' }] })));
  });

  it('does not retry an answer that was processed (422, 400), nor anything without a key', async () => {
    const { fetch, calls } = stubFetch([
      { status: 422, body: { error: 'x', code: 'idempotency_key_reused' } },
      { status: 400, body: { error: 'x', code: 'invalid_request' } },
      () => {
        throw new TypeError('fetch failed');
      },
    ]);
    const client = new TurnsClient({ baseUrl: 'http://d', fetch });
    await expect(client.prompt('s', 'x')).rejects.toMatchObject({ status: 422, code: 'idempotency_key_reused' });
    await expect(client.prompt('s', 'x')).rejects.toMatchObject({ status: 400, code: 'invalid_request' });
    await expect(client.prompt('s', 'x', { idempotencyKey: false })).rejects.toThrow('fetch failed');
    expect(calls).toHaveLength(3);
    expect(header(calls[2]!.init, 'idempotency-key')).toBeNull();
  });

  it('retries a full queue (503 with Retry-After) with the same key: nothing was admitted', async () => {
    jest.useFakeTimers();
    const full = { status: 503, body: { error: 'x', code: 'prompt_queue_full' }, headers: { 'retry-after': '1' } };
    const { fetch, calls } = stubFetch([full, admitted]);
    const result = new TurnsClient({ baseUrl: 'http://d', fetch }).prompt('s', 'x');
    await jest.advanceTimersByTimeAsync(10_000);
    await expect(result).resolves.toEqual(admitted.body);
    expect(new Set(calls.map((c) => header(c.init, 'idempotency-key'))).size).toBe(1);
  });

  it('gives up after its retries with the last answer', async () => {
    jest.useFakeTimers();
    const busy = { status: 409, body: { error: 'x', code: 'idempotency_key_in_flight' }, headers: { 'retry-after': '1' } };
    const { fetch, calls } = stubFetch([busy, busy]);
    const result = new TurnsClient({ baseUrl: 'http://d', fetch, retries: 1 }).createSession({}).catch((e: unknown) => e);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(await result).toMatchObject({ status: 409, code: 'idempotency_key_in_flight' });
    expect(calls).toHaveLength(2);
  });
});

describe('isRetryableAdmission', () => {
  it('retries only answers that processed nothing', () => {
    expect(isRetryableAdmission(409, 'idempotency_key_in_flight')).toBe(true);
    expect(isRetryableAdmission(502, undefined)).toBe(true);
    expect(isRetryableAdmission(409, 'session_busy')).toBe(false);
    expect(isRetryableAdmission(503, 'prompt_queue_full')).toBe(false);
    expect(isRetryableAdmission(500, 'internal_error')).toBe(false);
  });
});

describe('pollDelayMs', () => {
  it('never polls faster than Retry-After, backs off, stays under 10 s, and jitters within ±20%', () => {
    expect(pollDelayMs('1', 0, () => 0.5)).toBe(1_000);
    expect(pollDelayMs('2', 0, () => 0)).toBe(2_000); // jitter never goes under the server's hint
    expect(pollDelayMs('1', 3, () => 0.5)).toBe(3_375);
    expect(pollDelayMs('1', 20, () => 1)).toBe(10_000);
    expect(pollDelayMs(null, 0, () => 0.5)).toBe(1_000);
    for (let i = 0; i < 100; i += 1) {
      const delay = pollDelayMs('1', 2, Math.random);
      expect(delay).toBeGreaterThanOrEqual(1_800);
      expect(delay).toBeLessThanOrEqual(2_700);
    }
  });
});
