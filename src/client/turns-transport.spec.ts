import { caps, header, status, stubFetch, unreachable } from '../../test/support/stub-fetch.js';
import { TurnsApiError } from './errors.js';
import { TurnsClient } from './turns-client.js';

describe('TurnsTransport (through TurnsClient)', () => {
  afterEach(() => jest.useRealTimers());

  it('sends the token and the client id, encodes path ids, and turns error bodies into TurnsApiError', async () => {
    const { fetch, calls } = stubFetch([
      { status: 404, body: { error: 'Session not found', code: 'session_not_found', sessionId: 'a/b' } },
    ]);
    const client = new TurnsClient({ baseUrl: 'http://daemon/', token: 't', clientId: 'client_1', fetch });
    const error = await client.getCurrent('a/b').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TurnsApiError);
    expect(error).toMatchObject({ status: 404, code: 'session_not_found', body: { sessionId: 'a/b' } });
    // The code is the catalogue's union: a misspelt one does not compile (checked by tsc).
    const { code } = error as TurnsApiError;
    // @ts-expect-error no code of the catalogue is spelt so
    expect(code === 'sesion_not_found').toBe(false);
    expect(calls[0]!.url).toBe('http://daemon/session/a%2Fb/turns/current');
    expect(header(calls[0]!.init, 'authorization')).toBe('Bearer t');
    expect(header(calls[0]!.init, 'x-qwen-client-id')).toBe('client_1');
  });

  it('retries a read that could not reach the daemon or met a 503 with Retry-After, up to `retries` times', async () => {
    jest.useFakeTimers();
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

  it("turns an error answer that is not JSON (a proxy's page) into TurnsApiError with its text", async () => {
    const fetch = (async () => new Response('<html>Bad Gateway</html>', { status: 502 })) as typeof globalThis.fetch;
    const error = await new TurnsClient({ baseUrl: 'http://daemon', fetch }).getTurn('s', 'p').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TurnsApiError);
    expect(error).toMatchObject({ status: 502, code: undefined, body: '<html>Bad Gateway</html>', message: '502: request failed' });
  });
  describe('a 429 (rate limits)', () => {
    const limited = (code = 'rate_limit_exceeded', retryAfterMs = 6_000) => ({
      status: 429,
      body: { error: 'Rate limit exceeded', code, tier: 'prompt', retryAfterMs },
      headers: { 'retry-after': String(Math.ceil(retryAfterMs / 1000)) },
    });

    it("waits out the daemon's refusal for its retryAfterMs and sends even a write again, not counted as a retry", async () => {
      jest.useFakeTimers();
      const admitted = { status: 202, body: { promptId: 'p', lastEventId: 0, eventEpoch: 'e' } };
      const { fetch, calls } = stubFetch([limited(), limited(), admitted]);
      const waits: unknown[] = [];
      const client = new TurnsClient({ baseUrl: 'http://daemon', fetch, retries: 0, onRateLimited: (wait) => waits.push(wait) });
      const answer = client.prompt('s', 'hi', { idempotencyKey: false });
      await jest.advanceTimersByTimeAsync(5_999);
      expect(calls).toHaveLength(1);
      await jest.advanceTimersByTimeAsync(20_000);
      await expect(answer).resolves.toMatchObject({ promptId: 'p' });
      expect(calls).toHaveLength(3);
      expect(waits).toEqual([
        { method: 'POST', path: '/session/s/prompt', tier: 'prompt', retryAfterMs: 6_000 },
        { method: 'POST', path: '/session/s/prompt', tier: 'prompt', retryAfterMs: 6_000 },
      ]);
    });

    it('throws a 429 it may not repeat (a write, not the daemon refusal) or past maxRateLimitWaitMs', async () => {
      jest.useFakeTimers();
      const other = stubFetch([limited('proxy_limit')]);
      await expect(
        new TurnsClient({ baseUrl: 'http://daemon', fetch: other.fetch }).prompt('s', 'hi', { idempotencyKey: false }),
      ).rejects.toMatchObject({ status: 429 });
      expect(other.calls).toHaveLength(1);

      const long = stubFetch([limited('rate_limit_exceeded', 60_000), limited('rate_limit_exceeded', 60_000)]);
      const client = new TurnsClient({ baseUrl: 'http://daemon', fetch: long.fetch, maxRateLimitWaitMs: 100_000 });
      const failed = client.getCurrent('s').catch((e: unknown) => e);
      await jest.advanceTimersByTimeAsync(200_000);
      await expect(failed).resolves.toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
      expect(long.calls).toHaveLength(2);
    });
  });
});
