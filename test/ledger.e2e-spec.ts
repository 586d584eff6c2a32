import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { compileSources } from './support/compiled.js';
import { startDaemonProcess, type DaemonProcess } from './support/daemon-process.js';
import { eventually } from './support/eventually.js';
import { ADAPTERS, startDaemon, tempDir, type TestDaemon } from './support/test-daemon.js';

const json = { 'content-type': 'application/json' };

/** The ledger files under a data dir (one workspace, one chats folder). */
function ledgerOf(dataDir: string, sessionId: string): string {
  const [workspace] = readdirSync(dataDir).filter((name) => existsSync(join(dataDir, name, 'chats')));
  return join(dataDir, workspace!, 'chats', `${sessionId}.ledger.jsonl`);
}

const records = (path: string): Array<Record<string, unknown>> =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];

describe.each(ADAPTERS)('prompt ledger over HTTP (%s)', (httpAdapter) => {
  let dataDir: string;
  let daemon: TestDaemon;

  beforeEach(async () => {
    dataDir = tempDir();
    daemon = await startDaemon({ httpAdapter, dataDir });
  });
  afterEach(() => daemon.close(true));

  it('advertises session_turn_ledger', async () => {
    const caps = await daemon.http.get('/capabilities').expect(200);
    expect(caps.body.features).toContain('session_turn_ledger');
  });

  it('after a restart, the exact route answers what only the ledger knows (a queued removal), and the transcript record still wins', async () => {
    const { sessionId } = await daemon.createSession();
    const running = await daemon.prompt(sessionId, 'running');
    const removed = await daemon.prompt(sessionId, 'removed');
    await daemon.engine.nextTurn();
    await daemon.http.delete(`/session/${sessionId}/pending-prompts/${removed}`).expect(200, { removed: true });
    // A graceful stop publishes session_closed for the running prompt; the ledger keeps it.
    await daemon.close();

    daemon = await startDaemon({ httpAdapter, dataDir });
    const loaded = (await daemon.http.post(`/session/${sessionId}/load`).expect(200)).body;
    expect(loaded.promptTerminals).toEqual([
      { v: 1, promptId: removed, terminal: 'cancelled', stopReason: 'cancelled', at: expect.any(Number) },
      { v: 1, promptId: running, terminal: 'error', code: 'session_closed', at: expect.any(Number) },
    ]);
    const cancelled = await daemon.http.get(`/session/${sessionId}/turns/${removed}`).expect(200);
    expect(cancelled.body).toEqual({
      sessionId,
      promptId: removed,
      state: 'cancelled',
      stopReason: 'cancelled',
      endedAt: expect.any(Number),
    });
    // The running prompt's own outcome (the engine's cancel at close) reached the transcript: that record wins over the ledger's.
    const closed = await daemon.http.get(`/session/${sessionId}/turns/${running}`).expect(200);
    expect(closed.body).toMatchObject({ promptId: running, state: 'cancelled', promptText: 'running', startedAt: expect.any(Number) });
    // Still a 404 for a prompt no source has.
    await daemon.http.get(`/session/${sessionId}/turns/00000000-0000-4000-8000-000000000000`).expect(404);
  });
});

/**
 * `kill -9` of a daemon run as operators run it, with one prompt running and
 * two queued: after a restart and `load`, all three are settled as lost
 * (none reached a turn_result) and polls answer them.
 */
describe('prompt ledger across kill -9 (daemon processes)', () => {
  jest.setTimeout(120_000);
  let dist: string;
  const started: DaemonProcess[] = [];
  const dirs: string[] = [];

  beforeAll(() => {
    dist = compileSources('ledger');
  });
  afterEach(async () => {
    for (const daemon of started.splice(0)) {
      if (daemon.child.exitCode === null && daemon.child.signalCode === null) daemon.child.kill('SIGKILL');
      await daemon.exited;
    }
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const start = async (dataDir: string, adapter: string) => {
    const daemon = await startDaemonProcess(join(dist, 'daemon', 'bin.js'), {
      TURNS_DATA_DIR: dataDir,
      TURNS_WORKSPACES: dataDir,
      TURNS_HTTP_ADAPTER: adapter,
      // The running prompt stays running until the kill.
      TURNS_ECHO_DELAY_MS: '600000',
    });
    started.push(daemon);
    return daemon;
  };

  it.each(ADAPTERS)('one running and two queued prompts are all settled interrupted/daemon_lost at load (%s)', async (adapter) => {
    const dataDir = tempDir('turns-ledger-');
    dirs.push(dataDir);
    const first = await start(dataDir, adapter);
    const created = await fetch(`${first.url}/session`, { method: 'POST', headers: json, body: '{}' });
    const { sessionId } = (await created.json()) as { sessionId: string };
    const promptIds: string[] = [];
    for (const text of ['running', 'queued 1', 'queued 2']) {
      const res = await fetch(`${first.url}/session/${sessionId}/prompt`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ prompt: [{ type: 'text', text }] }),
      });
      expect(res.status).toBe(202);
      promptIds.push(((await res.json()) as { promptId: string }).promptId);
    }
    const ledger = ledgerOf(dataDir, sessionId);
    // The in_flight records are written after the 202 (best effort): wait for them, then crash.
    await eventually(() => (records(ledger).length === 3 ? true : undefined));
    first.child.kill('SIGKILL');
    await first.exited;
    expect(records(ledger).map((r) => r.state)).toEqual(['in_flight', 'in_flight', 'in_flight']);

    const second = await start(dataDir, adapter);
    const before = await fetch(`${second.url}/session/${sessionId}/turns/${promptIds[0]}`);
    expect(before.status).toBe(404); // not live until loaded
    const loaded = (await (await fetch(`${second.url}/session/${sessionId}/load`, { method: 'POST' })).json()) as {
      promptTerminals?: unknown[];
    };
    expect(loaded.promptTerminals).toEqual(
      promptIds.map((promptId) => ({ v: 1, promptId, terminal: 'interrupted', code: 'daemon_lost', at: expect.any(Number) })),
    );
    for (const promptId of promptIds) {
      const res = await fetch(`${second.url}/session/${sessionId}/turns/${promptId}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        sessionId,
        promptId,
        state: 'error',
        error: { code: 'daemon_lost', message: expect.any(String) },
        endedAt: expect.any(Number),
      });
    }
    // Settled once: the ledger holds three terminals, and a second load adds none.
    await fetch(`${second.url}/session/${sessionId}/load`, { method: 'POST' });
    expect(records(ledger).filter((r) => r.terminal === 'interrupted')).toHaveLength(3);
  });
});
