import { randomBytes } from 'node:crypto';
import { Command, InvalidArgumentError } from 'commander';
import { isPrincipalName, tokenDigest } from './tokens-file.js';

/** A new token: 256 random bits, base64url (43 characters). */
export const newToken = (): string => randomBytes(32).toString('base64url');

/** The tokens-file line naming `token`'s principal by its SHA-256 (the token itself is never written there). */
export function tokensFileLine(principal: string, token: string, operator = false): string {
  return `${principal} sha256:${tokenDigest(token).toString('hex')}${operator ? ' operator' : ''}`;
}

function principalName(value: string): string {
  if (!isPrincipalName(value)) throw new InvalidArgumentError('letters, digits and . _ @ - (at most 128, not starting with a sign)');
  return value;
}

/**
 * `token <principal> [--operator]`: prints a new token (stdout, line 1) and
 * its line for the tokens file (line 2); how to use them goes to stderr.
 */
export function addTokenCommand(program: Command, io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream }): void {
  program
    .command('token')
    .description("print a new random token for a principal, and its sha256: line for the daemon's tokens file")
    .argument('<principal>', 'who the token is for (the name the daemon gives its sessions)', principalName)
    .option('--operator', 'an operator: reads and answers every principal’s sessions')
    .action((principal: string, flags: { operator?: boolean }) => {
      const token = newToken();
      io.stdout.write(`${token}\n${tokensFileLine(principal, token, flags.operator)}\n`);
      io.stderr.write(
        `give line 1 to ${principal} (its bearer token, shown only now); add line 2 to the tokens file (TURNS_TOKENS_FILE) and send the daemon SIGHUP\n`,
      );
    });
}
