import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { compileSources } from './support/compiled.js';
import { startDaemonProcess, type DaemonProcess } from './support/daemon-process.js';
import { eventually } from './support/eventually.js';
import { ADAPTERS } from './support/test-daemon.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** One compiled bin for both adapters (the adapter is a setting). */
let compiled: string | undefined;
const compiledBin = () => (compiled ??= join(compileSources('auth'), 'daemon', 'bin.js'));

/** The daemon as operators run it (a compiled bin in a child process): tokens rotated by SIGHUP, refusals at start. */
describe.each(ADAPTERS)('tokens of a daemon process (%s)', (httpAdapter) => {
  jest.setTimeout(60_000);
  let bin: string;
  let dir: string;
  let file: string;
  const daemons: DaemonProcess[] = [];

  beforeAll(() => {
    bin = compiledBin();
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'turns-auth-'));
    file = join(dir, 'tokens');
  });
  afterEach(() => {
    for (const daemon of daemons.splice(0)) daemon.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const env = (extra: NodeJS.ProcessEnv = {}) => ({
    TURNS_DATA_DIR: dir,
    TURNS_WORKSPACES: dir,
    TURNS_HTTP_ADAPTER: httpAdapter,
    ...extra,
  });

  async function start(extra: NodeJS.ProcessEnv, args: string[] = []): Promise<DaemonProcess> {
    const daemon = await startDaemonProcess(bin, env(extra), args);
    daemons.push(daemon);
    return daemon;
  }

  /** The bin run to its end (the CLI, or a daemon that refuses to start). */
  async function run(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<Run> {
    try {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [bin, ...args], {
        env: { ...process.env, TURNS_PORT: '0', ...env(extra) },
        timeout: 30_000,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as Run;
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  const status = async (daemon: DaemonProcess, token?: string, path = '/capabilities') =>
    (await fetch(`${daemon.url}${path}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } })).status;

  it("rotates on SIGHUP: a new token (the token command's) works and a removed one is refused; a bad file keeps the table and logs an error", async () => {
    writeFileSync(file, 'alice tok-alice-1\nbob tok-bob\n');
    const daemon = await start({ TURNS_TOKENS_FILE: file });
    expect([await status(daemon, 'tok-alice-1'), await status(daemon, 'tok-bob')]).toEqual([200, 200]);
    expect(daemon.output.join('\n')).toMatch(/auth bearer \(2 principals\)/);

    const made = await run(['token', 'carol']);
    const [carol, line] = made.stdout.split('\n');
    writeFileSync(file, `# bob left, alice rotated\nalice tok-alice-2\n${line}\n`);
    daemon.child.kill('SIGHUP');
    await eventually(async () => ((await status(daemon, carol)) === 200 ? true : undefined));
    expect([await status(daemon, 'tok-alice-2'), await status(daemon, 'tok-alice-1'), await status(daemon, 'tok-bob')]).toEqual([
      200, 401, 401,
    ]);
    expect(await eventually(() => daemon.output.find((out) => out.includes('reloaded')))).toMatch(
      /"level":"info".*tokens file .*tokens reloaded: 2 principals/,
    );

    writeFileSync(file, 'alice tok-alice-2\nalice tok-secret-3\n');
    daemon.child.kill('SIGHUP');
    const error = await eventually(() => daemon.output.find((out) => out.includes('"level":"error"')));
    expect(error).toContain(
      `tokens file ${file}, line 2: principal alice is already named (line 1); kept the table in force (2 principals)`,
    );
    expect([await status(daemon, 'tok-alice-2'), await status(daemon, carol), await status(daemon, 'tok-secret-3')]).toEqual([
      200, 200, 401,
    ]);
    // No token, old or new, ever in the log.
    const log = daemon.output.join('\n');
    for (const token of ['tok-alice-1', 'tok-alice-2', 'tok-bob', 'tok-secret-3', carol!]) expect(log).not.toContain(token);
    expect(daemon.child.exitCode).toBeNull();
  });

  it('refuses to start on a bad tokens file, naming the file and line, never the token', async () => {
    writeFileSync(file, `alice sha256:${'0'.repeat(64)}\nbob tok-secret operator please\n`);
    const refused = await run(['serve'], { TURNS_TOKENS_FILE: file });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `nest-turn-status: tokens file ${file}, line 2: too many words (expected <principal> <token>|sha256:<hex> [operator])\n`,
    );
    const missing = await run(['serve', '--tokens-file', join(dir, 'none')]);
    expect([missing.code, missing.stderr]).toEqual([2, `nest-turn-status: tokens file ${join(dir, 'none')} cannot be read (ENOENT)\n`]);
  });

  it('--require-auth on loopback: refuses to start without a token, and with one asks every route but /health', async () => {
    const refused = await run(['--require-auth']);
    expect([refused.code, refused.stderr]).toEqual([
      2,
      'nest-turn-status: --require-auth needs TURNS_TOKEN or TURNS_TOKENS_FILE: with no token, no request but /health could ever be authorized\n',
    ]);
    writeFileSync(file, 'alice tok-alice\n');
    const daemon = await start({ TURNS_REQUIRE_AUTH: 'true', TURNS_TOKENS_FILE: file });
    expect([await status(daemon), await status(daemon, 'tok-alice'), await status(daemon, undefined, '/health')]).toEqual([401, 200, 200]);
    expect(await status(daemon, undefined, '/docs-json')).toBe(401);
  });

  it("the CLI's client commands work with a tokens-file token given as TURNS_TOKEN", async () => {
    writeFileSync(file, 'alice tok-alice\n');
    const daemon = await start({ TURNS_TOKENS_FILE: file });
    const asAlice = await run(['prompt', 'hello', '--wait'], { TURNS_URL: daemon.url, TURNS_TOKEN: 'tok-alice' });
    expect([asAlice.code, asAlice.stdout]).toEqual([0, expect.stringContaining('hello')]);
    const asNobody = await run(['prompt', 'hello', '--wait'], { TURNS_URL: daemon.url, TURNS_TOKEN: 'tok-wrong' });
    expect([asNobody.code, asNobody.stderr]).toEqual([4, expect.stringMatching(/401/)]);
  });
});
