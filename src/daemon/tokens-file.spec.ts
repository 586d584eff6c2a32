import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_PRINCIPAL, isPrincipalName, parseTokensFile, tokenDigest, TokensFileError, type TokenEntry } from './tokens-file.js';

const FILE = '/etc/turns/tokens';
const hex = (token: string) => tokenDigest(token).toString('hex');
const parse = (text: string, reserved?: TokenEntry[]) =>
  parseTokensFile(text, FILE, reserved).map(({ principal, digest, operator }) => ({ principal, digest: digest.toString('hex'), operator }));

/** The message a bad file is refused with; it must never hold the secret in it. */
function refusal(text: string, secret = 'tok-secret', reserved?: TokenEntry[]): string {
  let message = '';
  try {
    parseTokensFile(text, FILE, reserved);
  } catch (error) {
    expect(error).toBeInstanceOf(TokensFileError);
    message = (error as Error).message;
  }
  expect(message).not.toBe('');
  expect(message).not.toContain(secret);
  return message;
}

describe('parseTokensFile', () => {
  it('reads plain and sha256 lines, with the operator flag, comments and blank lines', () => {
    const text = [
      '# the team',
      '',
      'alice tok-alice',
      `  bob   sha256:${hex('tok-bob').toUpperCase()}   # rotated monthly`,
      `root sha256:${hex('tok-root')} operator`,
      '\t',
      'carol@example.com tok#carol',
    ].join('\r\n');
    expect(parse(text)).toEqual([
      { principal: 'alice', digest: hex('tok-alice'), operator: false },
      { principal: 'bob', digest: hex('tok-bob'), operator: false },
      { principal: 'root', digest: hex('tok-root'), operator: true },
      // A `#` inside a word is part of it.
      { principal: 'carol@example.com', digest: hex('tok#carol'), operator: false },
    ]);
  });

  it.each([
    ['a principal alone', 'alice', /line 1: no token/],
    ['operator where the token goes', 'alice operator', /line 1: no token/],
    ['a fourth word', 'alice tok-secret operator extra', /line 1: too many words/],
    ['a third word that is not operator', 'alice tok-secret admin', /line 1: the only word allowed after the token is "operator"/],
    ['a principal name with a sign first', '-alice tok-secret', /line 1: a principal name/],
    ['a principal name with a slash', 'ali/ce tok-secret', /line 1: a principal name/],
    ['a sha256 with too few digits', 'alice sha256:abcd', /line 1: sha256: must be followed by 64 hex digits/],
    ['a sha256 with a non-hex digit', `alice sha256:${'g'.repeat(64)}`, /line 1: sha256: must be followed by 64 hex digits/],
    ['an empty sha256', 'alice sha256:', /line 1: sha256: must be followed by 64 hex digits/],
  ])('refuses %s, naming the file and the line', (_, line, reason) => {
    expect(refusal(line)).toMatch(new RegExp(`^tokens file ${FILE}, ${reason.source}`));
  });

  it('counts lines as the file has them: comments and blanks included', () => {
    expect(refusal('# header\n\nalice tok-a\nbob')).toMatch(/line 4: no token/);
  });

  it('refuses a principal named twice, and the same token twice, plain or hashed', () => {
    expect(refusal('alice tok-a\nalice tok-secret')).toMatch(/line 2: principal alice is already named \(line 1\)/);
    expect(refusal('alice tok-secret\nbob tok-secret')).toMatch(/line 2: the same token as line 1/);
    expect(refusal(`alice tok-secret\nbob sha256:${hex('tok-secret')}`)).toMatch(/line 2: the same token as line 1/);
  });

  it("refuses TURNS_TOKEN's principal and its token", () => {
    const reserved = [{ principal: DEFAULT_PRINCIPAL, digest: tokenDigest('env-token'), operator: true }];
    expect(refusal('default tok-secret', 'tok-secret', reserved)).toMatch(/line 1: principal default is already named \(TURNS_TOKEN\)/);
    expect(refusal('alice env-token', 'env-token', reserved)).toMatch(/line 1: the same token as TURNS_TOKEN/);
  });

  it('refuses a file that names nobody', () => {
    expect(refusal('')).toBe(`tokens file ${FILE} names no principal`);
    expect(refusal('# nobody yet\n\n')).toBe(`tokens file ${FILE} names no principal`);
  });
});

describe('the tokens file of docs/security.md', () => {
  const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'security.md'), 'utf8');
  const block = (fence: string) => new RegExp(`\`\`\`${fence}\n([\\s\\S]*?)\`\`\``).exec(doc)![1]!.replace(/^ {2}/gm, '');

  it('is a file the daemon reads, its example tokens hashed right', () => {
    expect(parse(block('text'))).toEqual([
      { principal: 'alice', digest: hex('alice-example-token'), operator: false },
      { principal: 'ci-bot', digest: hex('ci-bot-example-token'), operator: false },
      { principal: 'ops', digest: hex('ops-example-token'), operator: true },
      { principal: 'dev', digest: hex('a-plain-token-works-too'), operator: false },
    ]);
  });

  it("shows the token command's two lines as they belong together", () => {
    const [, token, line] = block('console').trim().split('\n');
    expect(line).toBe(`alice sha256:${hex(token!)}`);
  });
});

describe('isPrincipalName', () => {
  it('takes letters, digits and . _ @ -, up to 128, not starting with a sign', () => {
    for (const name of ['a', 'alice', 'ci-bot_2', 'alice@example.com', 'x'.repeat(128)]) expect(isPrincipalName(name)).toBe(true);
    for (const name of ['', '#a', '-a', '.a', 'a b', 'a:b', 'sha256:ab', 'x'.repeat(129), 'é']) expect(isPrincipalName(name)).toBe(false);
  });
});
