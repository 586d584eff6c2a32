import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { compileSources } from './support/compiled.js';
import { eventually } from './support/eventually.js';

/** What Node says of a FileHandle closed by the garbage collector: a warning up to 24, an uncaught error on 26. */
const COLLECTED_HANDLE = /Closing file descriptor \d+ on garbage collection|FileHandle object was closed during garbage collection/;

/**
 * The daemon under a garbage collector that runs every few milliseconds, while transcripts are appended
 * (prompts, a fork, a rewind, a session closed and the daemon stopped with writes under way) and read (a restart
 * loads the sessions and finds their earlier turns): a FileHandle the code forgot to close would be collected,
 * and Node would say so on stderr (Node 26 would take the daemon down).
 */
describe('file handles under forced garbage collection', () => {
  jest.setTimeout(120_000);
  let dist: string;
  let work: string;
  let dataDir: string;
  let preload: string;
  beforeAll(() => {
    dist = compileSources('file-handles');
    work = mkdtempSync(join(tmpdir(), 'turns-gc-'));
    dataDir = join(work, 'data');
    preload = join(work, 'gc.mjs');
    writeFileSync(
      preload,
      [
        "import { open } from 'node:fs/promises';",
        'setInterval(() => globalThis.gc(), 100).unref();',
        '// On demand too: collect, give Node a moment to report what it closed, and say so.',
        "process.on('SIGUSR2', () => (globalThis.gc(), setTimeout(() => console.error('collected'), 100)));",
        '// The control: one handle opened and dropped, for the collector to find.',
        'if (process.env.LEAK_ONE_HANDLE) void open(process.execPath).then(() => undefined);',
      ].join('\n'),
    );
  });
  const children: ChildProcess[] = [];
  afterEach(() => children.splice(0).forEach((child) => child.kill('SIGKILL')));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** The compiled daemon with --expose-gc and the preload that runs the collector. */
  async function start(env: NodeJS.ProcessEnv = {}) {
    const child = spawn(process.execPath, ['--expose-gc', '--import', preload, join(dist, 'daemon', 'bin.js')], {
      env: { ...process.env, TURNS_PORT: '0', TURNS_LOG: '', TURNS_DATA_DIR: dataDir, TURNS_WORKSPACES: work, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
        if (found) resolve(found);
      });
      void exited.then((code) => reject(new Error(`daemon exited early with ${code}: ${stderr}`)));
    });
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    };
    /** Runs the collector now and resolves once the daemon has had time to report what it closed. */
    const collect = async () => {
      const before = stderr.split('collected').length;
      child.kill('SIGUSR2');
      await eventually(() => (stderr.split('collected').length > before ? true : undefined), 10_000);
    };
    return { child, exited, call, collect, stderr: () => stderr };
  }
  type Daemon = Awaited<ReturnType<typeof start>>;

  const prompt = async (daemon: Daemon, sessionId: string, text: string) => {
    const { status, body } = await daemon.call('POST', `/session/${sessionId}/prompt`, { prompt: [{ type: 'text', text }] });
    expect({ status, body }).toEqual({ status: 202, body: expect.objectContaining({ promptId: expect.any(String) }) });
    return body.promptId as string;
  };
  const settled = (daemon: Daemon, sessionId: string, promptId: string) =>
    eventually(async () => {
      const { body } = await daemon.call('GET', `/session/${sessionId}/turns/${promptId}?waitMs=2000`);
      return body.state === 'completed' ? body : undefined;
    }, 30_000);

  it('leaves no FileHandle to the collector while transcripts are appended and read, across a restart', async () => {
    const first = await start();
    const sessions = await Promise.all(
      [1, 2, 3, 4].map(async () => (await first.call('POST', '/session', { sessionScope: 'thread' })).body.sessionId as string),
    );
    expect(new Set(sessions).size).toBe(4);
    const prompts = new Map<string, string[]>();
    await Promise.all(
      sessions.map(async (sessionId) => {
        const ids: string[] = [];
        for (let n = 0; n < 4; n += 1) {
          ids.push(await prompt(first, sessionId, `turn ${n}`));
          await settled(first, sessionId, ids.at(-1)!);
        }
        prompts.set(sessionId, ids);
      }),
    );
    const [a, b, c, d] = sessions as [string, string, string, string];
    expect((await first.call('POST', `/session/${a}/fork`)).status).toBe(200);
    expect((await first.call('POST', `/session/${b}/rewind`, { promptId: prompts.get(b)![3] })).status).toBe(200);
    // A session closed, and the daemon stopped, with appends still queued.
    const closing = first.call('POST', `/session/${c}/prompt`, { prompt: [{ type: 'text', text: 'closed while written' }] });
    expect((await first.call('DELETE', `/session/${c}`)).status).toBe(204);
    expect([202, 404]).toContain((await closing).status); // admitted before the close, or after it
    await first.collect();
    await Promise.all([prompt(first, d, 'stopped while written'), prompt(first, a, 'stopped while written')]);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = await start();
    for (const sessionId of [a, b, d]) {
      expect((await second.call('POST', `/session/${sessionId}/load`)).status).toBe(200);
      // Out of the new daemon's memory: found by reading the transcript.
      expect((await second.call('GET', `/session/${sessionId}/turns/${prompts.get(sessionId)![0]}`)).body.state).toBe('completed');
      await settled(second, sessionId, await prompt(second, sessionId, 'after the restart'));
    }
    await second.collect();
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    expect(first.stderr()).not.toMatch(COLLECTED_HANDLE);
    expect(second.stderr()).not.toMatch(COLLECTED_HANDLE);
  });

  it('would see a handle left to the collector (the control: the preload drops one)', async () => {
    const daemon = await start({ LEAK_ONE_HANDLE: '1' });
    await daemon.collect().catch(() => undefined); // on Node 26 the daemon is gone by then
    await eventually(() => COLLECTED_HANDLE.exec(daemon.stderr()) ?? undefined, 10_000);
    daemon.child.kill('SIGKILL');
    await daemon.exited;
  });
});
