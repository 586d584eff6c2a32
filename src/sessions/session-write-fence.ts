import { Injectable } from '@nestjs/common';
import { SessionOwnership } from './session-ownership.js';

/**
 * What the transcript and ledger writers ask before each line: whether this node may still append to the session, and
 * the fence the line carries (docs/cluster.md#inv-lease-7). Cluster mode binds its own; a single daemon uses
 * {@link OwnerWriteFence}.
 *
 * @publicApi
 */
export abstract class SessionWriteFence {
  /**
   * True while this node may append to the session's transcript and ledger: what the ownership confirms, unless an
   * implementation can tell a lease it cannot verify from one it lost.
   */
  abstract mayWrite(sessionId: string): boolean | Promise<boolean>;

  /** The fence of the lease this node holds for the session, carried by every line it appends; `undefined`: none. */
  abstract fenceOf(sessionId: string): number | undefined;
}

/**
 * A single daemon's fence: it writes while its {@link SessionOwnership} confirms the session, and its lines carry none.
 *
 * @publicApi
 */
@Injectable()
export class OwnerWriteFence extends SessionWriteFence {
  constructor(private readonly ownership: SessionOwnership) {
    super();
  }

  mayWrite(sessionId: string): boolean | Promise<boolean> {
    return this.ownership.confirm(sessionId);
  }

  fenceOf(): undefined {
    return undefined;
  }
}
