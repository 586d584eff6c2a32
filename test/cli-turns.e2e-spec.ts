import { PassThrough } from 'node:stream';
import { runCli } from '../src/daemon/cli.js';
import { pollTurn } from './support/poll.js';
import { startDaemon, type TestDaemon } from './support/test-daemon.js';

/** Runs the command line in this process, its output captured. */
async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk.toString()));
  stderr.on('data', (chunk: Buffer) => err.push(chunk.toString()));
  const code = await runCli(argv, { stdout, stderr, env: {} });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

describe('nest-turn-status turns <session>', () => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startDaemon();
  });
  afterAll(() => daemon.close(true));

  it('lists the turns newest first, filtered by --state, as lines or JSON lines', async () => {
    const { sessionId } = await daemon.createSession();
    const first = await daemon.prompt(sessionId, 'first prompt');
    (await daemon.engine.nextTurn()).finish();
    await pollTurn(daemon, sessionId, first);
    const second = await daemon.prompt(sessionId, 'second prompt\nmore');
    const turn = await daemon.engine.nextTurn();
    turn.fail(Object.assign(new Error('nope'), { code: 'tool_failed' }));
    await pollTurn(daemon, sessionId, second);

    const lines = await cli('turns', sessionId, '--url', daemon.url);
    expect(lines).toEqual({
      code: 0,
      stdout: `error\t${second}\tsecond prompt [tool_failed]\ncompleted\t${first}\tfirst prompt\n`,
      stderr: '',
    });
    const json = await cli('turns', sessionId, '--url', daemon.url, '--state', 'completed', '--json');
    expect(
      json.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([(await daemon.http.get(`/session/${sessionId}/turns/${first}`)).body]);
  });

  it('exits with the not-found code for an unknown session and names a bad state', async () => {
    expect((await cli('turns', '5c1d2a8e-7f7b-4a44-9a57-1f2e3d4c5b6a', '--url', daemon.url)).code).toBe(5);
    const { sessionId } = await daemon.createSession();
    const bad = await cli('turns', sessionId, '--url', daemon.url, '--state', 'done');
    // Checked by the command line itself, before any request (a usage error, 4).
    expect(bad.code).toBe(4);
    expect(bad.stderr).toMatch(
      /^error: option '--state <states>' argument 'done' is invalid\. a comma list of idle, queued, running, completed, cancelled, error$/m,
    );
  });
});
