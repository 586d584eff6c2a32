import { PassThrough } from 'node:stream';
import { runCli } from './cli.js';
import { PrincipalTable } from './principal-table.js';
import { newToken, tokensFileLine } from './token-command.js';
import { parseTokensFile } from './tokens-file.js';

async function cli(...argv: string[]) {
  const [stdout, stderr] = [new PassThrough(), new PassThrough()];
  const code = await runCli(argv, { stdout, stderr, env: {} });
  return { code, out: String(stdout.read() ?? ''), err: String(stderr.read() ?? '') };
}

describe('the token command', () => {
  it('prints a new token, then the sha256 line a daemon takes for it', async () => {
    const { code, out, err } = await cli('token', 'alice');
    const [token, line, rest] = out.split('\n');
    expect([code, rest]).toEqual([0, '']);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(line).toMatch(/^alice sha256:[0-9a-f]{64}$/);
    expect(line).not.toContain(token);
    expect(err).toMatch(/tokens file \(TURNS_TOKENS_FILE\) and send the daemon SIGHUP/);
    const table = new PrincipalTable(parseTokensFile(`${line}\n`, 'tokens'));
    expect(table.authenticate(`Bearer ${token}`)).toEqual({ name: 'alice', operator: false });
  });

  it('marks an operator', async () => {
    const { out } = await cli('token', 'root', '--operator');
    const [token, line] = out.split('\n');
    expect(line).toMatch(/^root sha256:[0-9a-f]{64} operator$/);
    expect(new PrincipalTable(parseTokensFile(line!, 'tokens')).authenticate(`Bearer ${token}`)).toEqual({ name: 'root', operator: true });
  });

  it('refuses a name the tokens file would refuse, and no name at all', async () => {
    for (const argv of [['token', 'ali ce'], ['token', '#root'], ['token']]) {
      const { code, out } = await cli(...argv);
      expect([code, out]).toEqual([4, '']);
    }
  });

  it('is in the help', async () => {
    expect((await cli('--help')).out).toMatch(/^ {2}token \[options\] <principal> +print a new random token/m);
    expect((await cli('token', '--help')).out).toContain('--operator');
  });

  it('makes 256 random bits each time', () => {
    const tokens = new Set(Array.from({ length: 100 }, newToken));
    expect(tokens.size).toBe(100);
    for (const token of tokens) expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(tokensFileLine('bob', 'x')).toBe('bob sha256:2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881');
  });
});
