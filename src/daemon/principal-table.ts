import { timingSafeEqual } from 'node:crypto';
import type { Principal } from '../http/request-principal.js';
import { tokenDigest, type TokenEntry } from './tokens-file.js';

interface Row {
  readonly digest: Buffer;
  readonly principal: Principal;
}

/** The first half of a digest: what the table is keyed by. */
const keyOf = (digest: Buffer) => digest.toString('latin1', 0, 16);

/**
 * The principals a daemon knows, by their token's SHA-256. A presented token
 * is hashed once and its row found in a Map, so a table of 1,000 principals
 * costs what one does; the row is keyed by the digest's first half and the
 * whole digest is then compared in constant time, so the lookup's timing
 * tells nothing of the stored tokens. Missing, malformed and wrong tokens are
 * alike (one hash each).
 */
export class PrincipalTable {
  private readonly rows = new Map<string, Row>();

  constructor(entries: readonly TokenEntry[]) {
    // Two tokens sharing 128 bits of SHA-256 are the same token: the parser refused that already.
    for (const { principal, digest, operator } of entries) {
      this.rows.set(keyOf(digest), { digest, principal: Object.freeze({ name: principal, operator }) });
    }
  }

  /** How many principals it names. */
  get size(): number {
    return this.rows.size;
  }

  /** The principal an `Authorization: Bearer <token>` header proves (the scheme in any case, RFC 9110), else `undefined`. */
  authenticate(authorization: unknown): Principal | undefined {
    const match = typeof authorization === 'string' ? /^Bearer +(\S+)\s*$/i.exec(authorization) : null;
    const presented = tokenDigest(match?.[1] ?? '');
    const row = this.rows.get(keyOf(presented));
    return row && timingSafeEqual(presented, row.digest) && match !== null ? row.principal : undefined;
  }
}
