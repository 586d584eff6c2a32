import { header, stubFetch, unreachable } from '../../test/support/stub-fetch.js';
import { TurnsClient } from './turns-client.js';

describe('TurnsClient admission (Idempotency-Key)', () => {
  afterEach(() => jest.useRealTimers());
  const admitted = { status: 202, body: { promptId: 'p', lastEventId: 1, eventEpoch: 'e' } };
  const inFlight = { status: 409, body: { error: 'x', code: 'idempotency_key_in_flight' }, headers: { 'retry-after': '1' } };

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

  it('never sends a prompt twice on its own: a write without an Idempotency-Key is not retried', async () => {
    const { fetch, calls } = stubFetch([unreachable]);
    const client = new TurnsClient({ baseUrl: 'http://daemon', fetch, retries: 5 });
    await expect(client.prompt('s', 'hi', { idempotencyKey: false })).rejects.toBeInstanceOf(TypeError);
    expect(calls).toHaveLength(1);
  });

  it('reuses its key on its own retries: after a network failure and a 409 in flight', async () => {
    jest.useFakeTimers();
    const { fetch, calls } = stubFetch([unreachable, inFlight, admitted]);
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
      unreachable,
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

  it('counts every retry of one call against `retries`, whatever its cause', async () => {
    jest.useFakeTimers();
    const { fetch, calls } = stubFetch([unreachable, inFlight, admitted]);
    const result = new TurnsClient({ baseUrl: 'http://d', fetch, retries: 1 }).prompt('s', 'x').catch((e: unknown) => e);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(await result).toMatchObject({ status: 409, code: 'idempotency_key_in_flight' });
    expect(calls).toHaveLength(2);
  });

  it('gives up after its retries with the last answer', async () => {
    jest.useFakeTimers();
    const { fetch, calls } = stubFetch([inFlight, inFlight]);
    const result = new TurnsClient({ baseUrl: 'http://d', fetch, retries: 1 }).createSession({}).catch((e: unknown) => e);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(await result).toMatchObject({ status: 409, code: 'idempotency_key_in_flight' });
    expect(calls).toHaveLength(2);
  });
});
