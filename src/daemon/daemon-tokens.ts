import { Logger } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import type { Principal } from '../http/request-principal.js';
import { PrincipalTable } from './principal-table.js';
import { DEFAULT_PRINCIPAL, parseTokensFile, tokenDigest, TokensFileError, type TokenEntry } from './tokens-file.js';

/** `1 principal`, `2 principals`. */
export const principalCount = (count: number) => `${count} principal${count === 1 ? '' : 's'}`;

/** Where a daemon's tokens come from: `TURNS_TOKEN` and `TURNS_TOKENS_FILE` (either, both or neither). */
export interface TokenSources {
  token?: string;
  tokensFile?: string;
}

/**
 * The daemon's principals, from `TURNS_TOKEN` and the tokens file (docs/security.md#principals); {@link reload}
 * re-reads the file, a bad one keeps the table in force. With no token at all there is no table: nothing is checked.
 *
 * @publicApi
 */
export class DaemonTokens {
  private readonly fixed: TokenEntry[];
  private current: PrincipalTable | undefined;

  /** Reads the file; a bad one throws a {@link TokensFileError} (the daemon refuses to start). */
  constructor(
    private readonly sources: TokenSources,
    private readonly logger = new Logger('Auth'),
  ) {
    this.fixed = sources.token === undefined ? [] : [{ principal: DEFAULT_PRINCIPAL, digest: tokenDigest(sources.token), operator: true }];
    this.current = this.read();
  }

  /** Whether any token is configured: requests then need one. */
  get required(): boolean {
    return this.current !== undefined;
  }

  /** How many principals the table in force names. */
  get size(): number {
    return this.current?.size ?? 0;
  }

  /** The principal an `Authorization` header proves, if any. */
  authenticate(authorization: unknown): Principal | undefined {
    return this.current?.authenticate(authorization);
  }

  /**
   * Re-reads the tokens file: a good one replaces the table (an `info` line
   * with the count), a bad one leaves it as it was (an `error` line naming
   * the file and line, never a token). Without a file there is nothing to do.
   */
  reload(): boolean {
    if (this.sources.tokensFile === undefined) return false;
    try {
      this.current = this.read();
    } catch (error) {
      if (!(error instanceof TokensFileError)) throw error;
      this.logger.error(`${error.message}; kept the table in force (${principalCount(this.size)})`);
      return false;
    }
    this.logger.log(`tokens file ${this.sources.tokensFile} reloaded: ${principalCount(this.size)}`);
    return true;
  }

  private read(): PrincipalTable | undefined {
    const file = this.sources.tokensFile;
    if (file === undefined) return this.fixed.length ? new PrincipalTable(this.fixed) : undefined;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new TokensFileError(`tokens file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    return new PrincipalTable([...this.fixed, ...parseTokensFile(text, file, this.fixed)]);
  }
}
