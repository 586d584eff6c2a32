import { hash } from 'node:crypto';
import { ConfigError } from '../common/settings/setting.js';

/** One principal of a tokens file (or `TURNS_TOKEN`'s): its name, its token's SHA-256, whether it is an operator. */
export interface TokenEntry {
  readonly principal: string;
  /** The token's SHA-256 (32 bytes): the token itself is never kept. */
  readonly digest: Buffer;
  readonly operator: boolean;
}

/** The principal `TURNS_TOKEN` names (an operator: see docs/security.md#principals). */
export const DEFAULT_PRINCIPAL = 'default';

/** What a principal may be called: safe in a log line, a metric label and a file line. */
const PRINCIPAL_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/;
const SHA256_PREFIX = 'sha256:';

/** Whether `name` may name a principal. */
export const isPrincipalName = (name: string): boolean => PRINCIPAL_NAME.test(name);

/** A token's SHA-256, as the table keeps it and a `sha256:` line gives it. */
export const tokenDigest = (token: string): Buffer => hash('sha256', token, 'buffer');

/** A bad tokens file: the message names the file and the line, never a token. */
export class TokensFileError extends ConfigError {}

/**
 * Reads the lines of a tokens file: `<principal> <token>` or `<principal>
 * sha256:<hex>`, optionally followed by `operator`; `#` at the start of a word
 * starts a comment; blank lines are skipped. Throws a {@link TokensFileError}
 * naming `file` and the line on a malformed line, a bad hex, a duplicate
 * principal or token, or a file naming nobody. `reserved` are entries given
 * elsewhere (`TURNS_TOKEN`'s), whose name and token the file may not repeat.
 */
export function parseTokensFile(text: string, file: string, reserved: readonly TokenEntry[] = []): TokenEntry[] {
  const entries: TokenEntry[] = [];
  const names = new Map(reserved.map((entry) => [entry.principal, 'TURNS_TOKEN']));
  const digests = new Map(reserved.map((entry) => [entry.digest.toString('hex'), 'TURNS_TOKEN']));
  text.split(/\r?\n/).forEach((raw, index) => {
    const where = `line ${index + 1}`;
    const fail = (reason: string): never => {
      throw new TokensFileError(`tokens file ${file}, ${where}: ${reason}`);
    };
    const words = withoutComment(raw);
    if (words.length === 0) return;
    const [principal, token, flag, ...rest] = words as [string, string | undefined, string | undefined, ...string[]];
    if (rest.length > 0) fail('too many words (expected <principal> <token>|sha256:<hex> [operator])');
    if (!isPrincipalName(principal)) fail('a principal name is letters, digits and . _ @ - (at most 128, not starting with a sign)');
    if (token === undefined || token === 'operator') fail('no token after the principal');
    if (flag !== undefined && flag !== 'operator') fail('the only word allowed after the token is "operator"');
    const digest = token!.startsWith(SHA256_PREFIX) ? digestOf(token!.slice(SHA256_PREFIX.length), fail) : tokenDigest(token!);
    const key = digest.toString('hex');
    const named = names.get(principal);
    if (named) fail(`principal ${principal} is already named (${named})`);
    const repeated = digests.get(key);
    if (repeated) fail(`the same token as ${repeated}`);
    names.set(principal, where);
    digests.set(key, where);
    entries.push({ principal, digest, operator: flag === 'operator' });
  });
  if (entries.length === 0) throw new TokensFileError(`tokens file ${file} names no principal`);
  return entries;
}

/** The words of a line before its comment (a `#` that starts a word). */
function withoutComment(line: string): string[] {
  const words: string[] = [];
  for (const word of line.trim().split(/\s+/)) {
    if (word.startsWith('#')) break;
    if (word) words.push(word);
  }
  return words;
}

function digestOf(hex: string, fail: (reason: string) => never): Buffer {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) fail('sha256: must be followed by 64 hex digits');
  return Buffer.from(hex, 'hex');
}
