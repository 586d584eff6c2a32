import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileSources } from './support/compiled.js';
import { startDaemonProcess } from './support/daemon-process.js';
import { ADAPTERS } from './support/test-daemon.js';

/** The daemon as operators run it: a child process, stopped by a signal. */
describe.each(ADAPTERS)('daemon shutdown (%s)', (httpAdapter) => {
  jest.setTimeout(60_000);
  let dist: string;
  let dataDir: string;
  beforeAll(() => {
    dist = compileSources(`shutdown-${httpAdapter}`);
  });

  function start() {
    dataDir = mkdtempSync(join(tmpdir(), 'turns-shutdown-'));
    return startDaemonProcess(join(dist, 'daemon', 'bin.js'), {
      TURNS_DATA_DIR: dataDir,
      TURNS_WORKSPACES: dataDir,
      TURNS_HTTP_ADAPTER: httpAdapter,
      TURNS_ECHO_DELAY_MS: '60000',
    });
  }

  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('exits within 5 s on SIGTERM with an SSE stream, a held long-poll, a running prompt and a half-sent request open', async () => {
    const { child, url, exited } = await start();
    const session = (await (
      await fetch(`${url}/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    ).json()) as { sessionId: string };
    await fetch(`${url}/session/${session.sessionId}/prompt`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: [{ type: 'text', text: 'a minute long' }] }),
    });
    const events = new AbortController();
    const stream = await fetch(`${url}/session/${session.sessionId}/events`, { signal: events.signal });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    await reader.read(); // the stream is open
    const { port } = new URL(url);
    const held = fetch(`${url}/session/${session.sessionId}/turns/current?waitMs=30000`).then(
      (res) => res.status,
      () => 'reset',
    );
    const slow = connect(Number(port), '127.0.0.1');
    slow.on('error', () => undefined);
    slow.write(`POST /session HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);

    const started = Date.now();
    child.kill('SIGTERM');
    const code = await exited;
    const took = Date.now() - started;
    // The SSE stream ended instead of hanging.
    const drained = (async () => {
      try {
        while (!(await reader.read()).done);
      } catch {
        // a reset is an end too
      }
      return 'ended';
    })();
    await expect(drained).resolves.toBe('ended');
    events.abort();
    slow.destroy();
    expect(took).toBeLessThan(5_000);
    expect(code).toBe(0);
    // The held long-poll was answered (or its connection closed), not left hanging.
    expect([200, 'reset']).toContain(await held);
  });

  it('exits at once on a second signal', async () => {
    const { child, url, exited } = await start();
    const session = (await (
      await fetch(`${url}/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    ).json()) as { sessionId: string };
    const events = new AbortController();
    const stream = await fetch(`${url}/session/${session.sessionId}/events`, { signal: events.signal });
    await stream.body!.getReader().read();
    child.kill('SIGINT');
    child.kill('SIGINT');
    const code = await exited;
    events.abort();
    expect([0, 130]).toContain(code);
  });
});
