import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PACKAGE_VERSION } from '../src/common/package-version.js';
import { compileSources } from './support/compiled.js';
import { startDaemonProcess } from './support/daemon-process.js';
import { eventually } from './support/eventually.js';

const AGENT = `node ${join(__dirname, 'fixtures', 'acp-fixture-agent.mjs')}`;

/** The command line as users run it, against a real daemon driving the fixture ACP agent. */
describe('nest-turn-status command line', () => {
  jest.setTimeout(120_000);
  let bin: string;
  let daemon: ChildProcess;
  let url: string;
  let dataDir: string;

  beforeAll(async () => {
    bin = join(compileSources('cli'), 'daemon', 'bin.js');
    dataDir = mkdtempSync(join(tmpdir(), 'turns-cli-'));
    ({ child: daemon, url } = await startDaemonProcess(
      bin,
      { TURNS_DATA_DIR: dataDir, TURNS_WORKSPACES: dataDir, TURNS_AGENT: 'acp', TURNS_AGENT_COMMAND: AGENT },
      ['serve'],
    ));
  });
  afterAll(() => {
    daemon.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return run(args, { TURNS_URL: url });
  }

  async function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [bin, ...args], {
        env: { ...process.env, ...env },
        timeout: 60_000,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  it('prompt --wait prints the result text on stdout and exits 0; progress goes to stderr as plain lines', async () => {
    const run = await cli('prompt', 'tools please', '--wait');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('There are two entries.\n');
    // The new session's client id too: `permissions --client-id` answers as the prompt's originator with it.
    expect(run.stderr).toMatch(/^session \S+ prompt \S+ client client_\S+\n/);
    expect(run.stderr).toMatch(/completed \d+\.\ds\n/);
  });

  it('exits 1 for an error, with the error on stderr; --json prints the status', async () => {
    const run = await cli('prompt', 'error please', '--wait', '--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ state: 'error', error: { code: '-32603' } });
    expect(run.stderr).toContain('(-32603)');
  });

  it('prompt --idempotency-key: a rerun with the same key admits nothing new and prints the same ids', async () => {
    const first = await cli('prompt', 'once only', '--idempotency-key', 'ci-job-42');
    const rerun = await cli('prompt', 'once only', '--idempotency-key', 'ci-job-42');
    expect(first.code).toBe(0);
    expect(rerun).toEqual(first);
    const other = await cli('prompt', 'once only');
    expect(other.stdout).not.toBe(first.stdout);
  });

  it('prompt without --wait prints the ids; wait exits 2 once the prompt is cancelled, 3 when it times out', async () => {
    const admitted = await cli('prompt', 'slow job');
    expect(admitted.code).toBe(0);
    const [sessionId, promptId] = admitted.stdout.trim().split(' ');
    const timedOut = await cli('wait', sessionId!, promptId!, '--timeout', '300');
    expect(timedOut.code).toBe(3);
    const waiting = cli('wait', sessionId!, promptId!);
    await fetch(`${url}/session/${sessionId}/cancel`, { method: 'POST' });
    const cancelled = await waiting;
    expect(cancelled.code).toBe(2);
    const status = await cli('status', sessionId!, promptId!, '--json');
    expect(JSON.parse(status.stdout)).toMatchObject({ state: 'cancelled', promptId });
  });

  it('exits 4 for usage errors and an unreachable daemon', async () => {
    expect((await cli('wait')).code).toBe(4);
    expect((await cli('status', 'x', '--url', 'http://127.0.0.1:9')).code).toBe(4);
    const help = await cli('prompt', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--session <id>');
  });

  it('prints its version, and never starts a daemon for a typo, an unknown flag or a flag without its value', async () => {
    const version = await cli('--version');
    expect(version).toMatchObject({ code: 0, stdout: `${PACKAGE_VERSION}\n` });
    for (const args of [['promtp', 'hi'], ['--bogus'], ['serve', '--port'], ['serve', '--data-dir', '/tmp', 'extra']]) {
      const run = await cli(...args);
      expect({ args, code: run.code }).toEqual({ args, code: 4 });
      expect(run.stderr).toMatch(/^error: .*--help/);
      expect(run.stdout).not.toContain('listening');
    }
    // Each command lists the flags it reads: a time-out only where something waits.
    const help = (await cli('permissions', '--help')).stdout;
    expect(help).toMatch(/--json\s+print each pending request as one JSON line/);
    expect(help).toMatch(/^\s+session\s+the session id$/m);
    expect(help).toMatch(/^\s+request\s+the request id to answer$/m);
    expect(help).not.toContain('--timeout');
    expect((await cli('wait', '--help')).stdout).toContain('--timeout <ms>');
  });

  it('suggests the command a typo meant, and names the setting a port in use came from (flag or variable)', async () => {
    const typo = await cli('promtp', 'hi');
    expect(typo.code).toBe(4);
    expect(typo.stderr).toMatch(/^error: unknown command 'promtp' \(Did you mean prompt\?\) .*--help/);
    // After `serve`, a word is a stray argument of the daemon, not a command.
    expect(await cli('serve', 'promtp')).toMatchObject({ code: 4, stderr: expect.stringMatching(/^error: Unexpected argument 'promtp'/) });
    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const port = String((taken.address() as AddressInfo).port);
    try {
      const env = { TURNS_DATA_DIR: dataDir, TURNS_WORKSPACES: dataDir };
      const byFlag = await run(['serve', '--port', port], env);
      expect(byFlag).toMatchObject({ code: 1, stderr: `nest-turn-status: port ${port} is in use; set --port\n` });
      const byVariable = await run(['serve'], { ...env, TURNS_PORT: port });
      expect(byVariable).toMatchObject({ code: 1, stderr: `nest-turn-status: port ${port} is in use; set TURNS_PORT\n` });
      // A bad value too: by the flag that set it, else by its variable.
      const badFlag = await run(['serve', '--permission-policy', 'maybe'], env);
      const oneOf = 'must be one of ask, allow, deny (got "maybe")';
      expect(badFlag).toMatchObject({ code: 2, stderr: `nest-turn-status: --permission-policy ${oneOf}\n` });
      const badVariable = await run(['serve'], { ...env, TURNS_PERMISSION_POLICY: 'maybe' });
      expect(badVariable).toMatchObject({ code: 2, stderr: `nest-turn-status: TURNS_PERMISSION_POLICY ${oneOf}\n` });
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('names the URL it could not reach, and exits 5 for a session or prompt the daemon does not know', async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const closed = await cli('status', 'x', '--url', `http://127.0.0.1:${port}`);
    expect(closed.code).toBe(4);
    expect(closed.stderr).toBe(`cannot reach the daemon at http://127.0.0.1:${port}: fetch failed (ECONNREFUSED)\n`);
    const { sessionId } = (await (
      await fetch(`${url}/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"sessionScope":"thread"}' })
    ).json()) as { sessionId: string };
    const unknownPrompt = await cli('status', sessionId, 'no-such-prompt');
    expect(unknownPrompt.code).toBe(5);
    expect(unknownPrompt.stderr).toMatch(/prompt_not_found/);
    expect((await cli('wait', '00000000-0000-4000-8000-000000000000', 'p')).code).toBe(5);
  });

  it('on a terminal, keeps one live line of the state and the elapsed time: queued → running → cancelled', async () => {
    const { sessionId } = (await (
      await fetch(`${url}/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"sessionScope":"thread"}' })
    ).json()) as { sessionId: string };
    await fetch(`${url}/session/${sessionId}/prompt`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: [{ type: 'text', text: 'slow first' }] }),
    });
    // `script` gives the command a pseudo-terminal, as a user's shell would.
    const command = `${process.execPath} ${bin} prompt 'slow second' --session ${sessionId} --wait`;
    const terminal = spawn('script', ['-qec', command, '/dev/null'], { env: { ...process.env, TURNS_URL: url } });
    let screen = '';
    const shown = (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => screen.includes(text) && resolve();
        terminal.stdout.on('data', (chunk: Buffer) => ((screen += chunk), check()));
        check();
      });
    await shown('\u001b[2Kqueued ');
    await fetch(`${url}/session/${sessionId}/cancel`, { method: 'POST' }); // the first ends: the second runs
    await shown('\u001b[2Krunning ');
    await fetch(`${url}/session/${sessionId}/cancel`, { method: 'POST' });
    const code = await new Promise((resolve) => terminal.once('exit', resolve));
    expect(code).toBe(2);
    // One line, redrawn in place (carriage return, erase line) for each state, with its elapsed time.
    const redraws = ['queued', 'running', 'cancelled'].map((state) => screen.search(new RegExp(`\r\u001b\\[2K${state} \\d+\\.\\ds`)));
    expect(redraws.every((at) => at >= 0)).toBe(true);
    expect([...redraws].sort((a, b) => a - b)).toEqual(redraws);
  });

  it('on a terminal asks y/N before the tool the agent wants runs, and runs it only after a y (docs/permissions.md)', async () => {
    const marker = join(dataDir, 'marker.txt');
    rmSync(marker, { force: true });
    // `script` gives the command a pseudo-terminal: its stdin is what the user types.
    const command = `${process.execPath} ${bin} prompt 'shell now' --wait`;
    const terminal = spawn('script', ['-qec', command, '/dev/null'], { env: { ...process.env, TURNS_URL: url } });
    let screen = '';
    terminal.stdout.on('data', (chunk: Buffer) => (screen += chunk));
    const exited = new Promise((resolve) => terminal.once('exit', resolve));
    const asked = await eventually(() => (screen.includes('allow once? [y/N] ') ? screen : undefined), 30_000, 20);
    expect(asked).toMatch(/permission \S+: the agent asks to execute "echo ran > marker\.txt"\r?\nallow once\? \[y\/N\] $/);
    expect(existsSync(marker)).toBe(false);
    terminal.stdin.write('y\n');
    expect(await exited).toBe(0);
    expect(screen).toMatch(/permission \S+: allowed execute "echo ran > marker\.txt" \(proceed_once\)/);
    expect(screen).toMatch(/ran \(proceed_once\)\r?\n$/);
    expect(existsSync(marker)).toBe(true);
  });
});
