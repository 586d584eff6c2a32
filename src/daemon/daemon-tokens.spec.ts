import type { LoggerService } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DaemonTokens } from './daemon-tokens.js';
import { TokensFileError } from './tokens-file.js';

describe('DaemonTokens', () => {
  let dir: string;
  let file: string;
  let lines: Array<[string, string]>;
  let logger: Logger;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'turns-tokens-'));
    file = join(dir, 'tokens');
    lines = [];
    const record = (level: string) => (message: unknown) => void lines.push([level, String(message)]);
    logger = new Logger('Auth');
    Object.assign(logger, { log: record('info'), error: record('error') } satisfies Partial<LoggerService>);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('checks nothing without a token', () => {
    const tokens = new DaemonTokens({});
    expect([tokens.required, tokens.size, tokens.authenticate('Bearer x')]).toEqual([false, 0, undefined]);
    expect(tokens.reload()).toBe(false);
  });

  it('names TURNS_TOKEN the operator default, beside the principals of the file', () => {
    writeFileSync(file, 'alice tok-alice\n');
    const tokens = new DaemonTokens({ token: 'env-token', tokensFile: file }, logger);
    expect(tokens.authenticate('Bearer env-token')).toEqual({ name: 'default', operator: true });
    expect(tokens.authenticate('Bearer tok-alice')).toEqual({ name: 'alice', operator: false });
    expect(tokens.size).toBe(2);
  });

  it('refuses a file it cannot read, naming it', () => {
    expect(() => new DaemonTokens({ tokensFile: join(dir, 'missing') })).toThrow(
      new TokensFileError(`tokens file ${join(dir, 'missing')} cannot be read (ENOENT)`),
    );
  });

  it('rotates on reload: the new token works, the removed one no longer', () => {
    writeFileSync(file, 'alice tok-old\nbob tok-bob\n');
    const tokens = new DaemonTokens({ token: 'env-token', tokensFile: file }, logger);
    writeFileSync(file, 'alice tok-new\n');
    expect(tokens.reload()).toBe(true);
    expect(tokens.authenticate('Bearer tok-new')?.name).toBe('alice');
    expect(tokens.authenticate('Bearer tok-old')).toBeUndefined();
    expect(tokens.authenticate('Bearer tok-bob')).toBeUndefined();
    expect(tokens.authenticate('Bearer env-token')?.name).toBe('default');
    expect(lines).toEqual([['info', `tokens file ${file} reloaded: 2 principals`]]);
  });

  it('keeps the table in force when the new file is bad, and says so at error without the token', () => {
    writeFileSync(file, 'alice tok-alice\n');
    const tokens = new DaemonTokens({ tokensFile: file }, logger);
    writeFileSync(file, 'alice tok-alice\nbob tok-leaked extra words\n');
    expect(tokens.reload()).toBe(false);
    rmSync(file);
    expect(tokens.reload()).toBe(false);
    expect(tokens.authenticate('Bearer tok-alice')?.name).toBe('alice');
    expect(lines).toEqual([
      [
        'error',
        `tokens file ${file}, line 2: too many words (expected <principal> <token>|sha256:<hex> [operator]); kept the table in force (1 principal)`,
      ],
      ['error', `tokens file ${file} cannot be read (ENOENT); kept the table in force (1 principal)`],
    ]);
  });
});
