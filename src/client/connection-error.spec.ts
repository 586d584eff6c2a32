import { createServer } from 'node:net';
import { TurnsConnectionError } from './errors.js';
import { TurnsClient } from './turns-client.js';

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('TurnsConnectionError', () => {
  it('is what the client throws when the daemon is down: the URL, the system code, the cause', async () => {
    const port = await closedPort();
    const client = new TurnsClient({ baseUrl: `http://127.0.0.1:${port}/`, retries: 0 });
    const error = (await client.getTurn('s1', 'p1').catch((e: unknown) => e)) as TurnsConnectionError;
    expect(error).toBeInstanceOf(TurnsConnectionError);
    expect(error).toBeInstanceOf(TypeError); // what fetch rejected with, so existing catches still match
    expect(error.name).toBe('TurnsConnectionError');
    expect(error.url).toBe(`http://127.0.0.1:${port}/session/s1/turns/p1`);
    expect(error.code).toBe('ECONNREFUSED');
    expect(error.message).toBe(
      `cannot reach http://127.0.0.1:${port}/session/s1/turns/p1: fetch failed (connect ECONNREFUSED 127.0.0.1:${port})`,
    );
    expect((error.cause as Error).name).toBe('TypeError'); // fetch's own (of another realm under Jest)
    expect((error.cause as Error).message).toBe('fetch failed');
  });

  it('names the URL without its credentials, and a cause without a system error as itself', () => {
    const error = new TurnsConnectionError('http://user:hunter2@daemon:4170/capabilities', new TypeError('Failed to fetch'));
    expect(error.message).toBe('cannot reach http://daemon:4170/capabilities: Failed to fetch');
    expect(error.code).toBeUndefined();
    expect(error.message).not.toContain('hunter2');
  });

  it('leaves a request that ran out of time (requestTimeoutMs) as it is', async () => {
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    const fetch = (() => Promise.reject(timeout)) as typeof globalThis.fetch;
    const client = new TurnsClient({ baseUrl: 'http://daemon', fetch, retries: 0 });
    await expect(client.getTurn('s1', 'p1')).rejects.toBe(timeout);
  });
});
