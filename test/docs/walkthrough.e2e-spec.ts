import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { codeBlocks } from './markdown-blocks.js';
import { ADAPTERS, startDaemon, type TestDaemon } from '../support/test-daemon.js';

const PAGE = 'docs/walkthrough.md';
const BASE_LINE = /^BASE=http:\/\/127\.0\.0\.1:4170$/m;

/** The page's shell block, exactly as a reader pastes it. */
function walkthrough(): string {
  const blocks = codeBlocks(PAGE).filter((block) => block.info === 'sh');
  expect(blocks).toHaveLength(1);
  return blocks[0]!.code;
}

/** The sample answers the page shows (`# {…}` comment lines, a wrapped one joined), as parsed JSON. */
function documentedAnswers(script: string): Record<string, unknown>[] {
  const samples: string[] = [];
  for (const line of script.split('\n')) {
    if (line.startsWith('# {')) samples.push(line.slice(2));
    else if (line.startsWith('#  "')) samples[samples.length - 1] += line.slice(3);
  }
  return samples.map((sample) => JSON.parse(sample.replace(/\s+\(\d{3}\)$/, '')) as Record<string, unknown>);
}

/** Runs a script in a plain bash (no profile), as a reader's fresh terminal would; never throws for its exit code. */
async function bash(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('bash', ['--noprofile', '--norc', '-c', script], { timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const keys = (value: Record<string, unknown>) => Object.keys(value).sort();

describe('the curl walkthrough, pasted as is', () => {
  it('names the daemon once, on its first line, and every command goes through $BASE', () => {
    const script = walkthrough();
    expect(script.split('\n')[0]).toMatch(BASE_LINE);
    expect(script.match(/4170/g)).toHaveLength(1);
    expect(script).not.toMatch(/localhost|127\.0\.0\.1:(?!4170)/);
    for (const command of script.split('\n').filter((line) => /^\s*(\S+=\$\()?curl /.test(line.replace(/^#\s+/, '')))) {
      expect(command).toContain('"$BASE/');
    }
  });

  describe.each(ADAPTERS)('against a daemon on an ephemeral port (%s)', (httpAdapter) => {
    let daemon: TestDaemon;
    beforeAll(async () => {
      // The echo engine the page's outputs come from (startDaemon's default is the scripted one).
      daemon = await startDaemon({ httpAdapter }, { engine: undefined });
    });
    afterAll(() => daemon.close(true));

    it('prints what the page shows, one answer a line, with nothing on stderr', async () => {
      const script = walkthrough();
      const { stdout, stderr } = await promisify(execFile)(
        'bash',
        ['--noprofile', '--norc', '-c', script.replace(BASE_LINE, `BASE=${daemon.url}`)],
        {
          timeout: 30_000,
        },
      );
      expect(stderr).toBe('');
      expect(stdout.endsWith('\n')).toBe(true);
      const lines = stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(5);
      const [session, admitted, turn, current] = lines.slice(0, 4).map((line) => JSON.parse(line) as Record<string, unknown>);
      const [shownSession, shownAdmitted, shownTurn] = documentedAnswers(script);
      expect(keys(session!)).toEqual(keys(shownSession!));
      expect(keys(admitted!)).toEqual(keys(shownAdmitted!));
      expect(keys(turn!)).toEqual(keys(shownTurn!));
      expect(turn).toMatchObject({
        sessionId: session!.sessionId,
        promptId: admitted!.promptId,
        state: 'completed',
        resultText: 'echo: hello',
      });
      expect(current).toEqual(turn);
      expect(lines[4]).toBe('304');
    });

    it('shows curl’s own error, not a stack trace, when the daemon is not at $BASE', async () => {
      const closed = await startDaemon({ httpAdapter }, { engine: undefined });
      const gone = closed.url;
      await closed.close(true);
      const script = walkthrough().replace(BASE_LINE, `BASE=${gone}`);
      const { stderr } = await bash(script);
      expect(stderr.split('\n')[0]).toMatch(/^curl: \(7\) Failed to connect to 127\.0\.0\.1 port \d+/);
      expect(stderr).not.toMatch(/SyntaxError|\n {4}at /);
    });
  });
});
