import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { AcpEngine } from '../src/acp/acp.engine.js';
import { runCli } from '../src/daemon/cli.js';
import { eventually } from './support/eventually.js';
import { ADAPTERS, startDaemon, type TestDaemon } from './support/test-daemon.js';

const FIXTURE = `node ${join(__dirname, 'fixtures', 'acp-fixture-agent.mjs')}`;

/** The command line in this process, its output captured. */
async function cli(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await runCli(argv, { stdout, stderr, env, stdin: new PassThrough() });
  return { code, stdout: out, stderr: err };
}

/** The fixture agent processes this process started that still run (the ACP engine spawns them as its children). */
function agentsAlive(): number {
  const found = spawnSync('pgrep', ['-P', String(process.pid), '-f', 'acp-fixture-agent'], { encoding: 'utf8' });
  return found.stdout.split('\n').filter(Boolean).length;
}

/** The command line leaves nothing running behind it, names what waits on approval, and finds the daemon by TURNS_PORT. */
describe.each(ADAPTERS)('command line and session lifecycle over %s', (httpAdapter) => {
  jest.setTimeout(60_000);
  let daemon: TestDaemon;
  const live = async () => (await daemon.http.get('/daemon/status').expect(200)).body.sessions.live as number;

  beforeAll(async () => {
    daemon = await startDaemon({ agent: 'acp', agentCommand: FIXTURE, httpAdapter }, { engine: new AcpEngine(FIXTURE) });
  });
  afterAll(() => daemon.close(true));
  afterEach(async () => {
    for (const session of (await daemon.http.get('/daemon/status')).body.sessions.live ? await liveIds() : []) {
      await daemon.http.delete(`/session/${session}`);
    }
  });
  const liveIds = async (): Promise<string[]> => {
    const { SessionRegistry } = await import('../src/sessions/session-registry.js');
    return daemon.app
      .get(SessionRegistry)
      .all()
      .map((session) => session.id);
  };

  it('four one-shot prompt --wait runs leave no live session and no agent process', async () => {
    for (let i = 0; i < 4; i += 1) {
      const run = await cli(['prompt', `hello ${i}`, '--wait', '--url', daemon.url]);
      expect(run).toMatchObject({ code: 0, stdout: `fixture: hello ${i}\n` });
    }
    expect(await live()).toBe(0);
    await eventually(() => (agentsAlive() === 0 ? true : undefined));
  });

  it('--keep keeps the session; close ends it (its agent too), and a second close is the daemon 404', async () => {
    const kept = await cli(['prompt', 'hello', '--wait', '--keep', '--url', daemon.url]);
    expect(kept.code).toBe(0);
    const [, sessionId] = /^session (\S+) prompt/m.exec(kept.stderr)!;
    expect(await live()).toBe(1);
    expect(agentsAlive()).toBe(1);

    expect(await cli(['close', sessionId!, '--url', daemon.url])).toEqual({ code: 0, stdout: '', stderr: `closed ${sessionId}\n` });
    expect(await live()).toBe(0);
    await eventually(() => (agentsAlive() === 0 ? true : undefined));
    // Closed as DELETE closes it: its transcript stays, and a load makes it live again.
    await daemon.http.post(`/session/${sessionId}/load`).expect(200);
    await daemon.http.delete(`/session/${sessionId}`).expect(204);
    const again = await cli(['close', sessionId!, '--url', daemon.url]);
    expect(again.code).toBe(5);
    expect(again.stderr).toMatch(/404 session_not_found/);
  });

  it('status, turns and wait name a turn waiting on approval and print the command that answers it; that command answers it', async () => {
    const admitted = await cli(['prompt', 'shell now', '--url', daemon.url]);
    expect(admitted.code).toBe(0);
    const [sessionId, promptId] = admitted.stdout.trim().split(' ');
    const clientId = /^client (\S+)$/m.exec(admitted.stderr)![1]!;
    const status = await eventually(async () => {
      const run = await cli(['status', sessionId!, promptId!, '--url', daemon.url, '--client-id', clientId]);
      return run.stdout.includes('waits on approval:') ? run : undefined;
    });
    expect(status.code).toBe(0);
    const line = new RegExp(
      `^waits on approval: the agent asks to execute "echo ran > marker.txt"; answer with: (nest-turn-status permissions ${sessionId} (\\S+) --allow\\|--deny --url ${daemon.url} --client-id ${clientId})$`,
      'm',
    );
    expect(status.stdout).toMatch(new RegExp(`^running, waits on approval ${promptId}\n`));
    expect(status.stdout).toMatch(line);
    const [, command] = line.exec(status.stdout)!;

    const turns = await cli(['turns', sessionId!, '--url', daemon.url, '--client-id', clientId]);
    expect(turns.stdout).toMatch(new RegExp(`^running\t${promptId}\tshell now( \\[[^\\]]*\\])? \\[waits on approval\\]$`, 'm'));
    expect(turns.stdout).toMatch(line);

    const waited = await cli(['wait', sessionId!, promptId!, '--timeout', '1000', '--url', daemon.url, '--client-id', clientId]);
    expect(waited.code).toBe(3); // still waiting when the wait gave up
    expect(waited.stderr).toMatch(/^running, waits on approval \d+\.\ds$/m);
    expect(waited.stderr).toContain(`; it waits for an answer (${command})`);

    // The command as printed, from another shell, answers it.
    const [, ...args] = command!.replace('--allow|--deny', '--allow').split(' ');
    expect(await cli(args)).toMatchObject({ code: 0 });
    const settled = await cli(['wait', sessionId!, promptId!, '--url', daemon.url]);
    expect(settled).toMatchObject({ code: 0, stdout: 'ran (proceed_once)\n' });
  });

  it('without TURNS_URL, talks to 127.0.0.1 on TURNS_PORT', async () => {
    const port = new URL(daemon.url).port;
    const run = await cli(['prompt', 'hello', '--wait'], { TURNS_PORT: port });
    expect(run).toMatchObject({ code: 0, stdout: 'fixture: hello\n' });
  });
});
