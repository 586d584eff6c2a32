/**
 * This node in its cluster, for `GET /daemon/status` and the readiness probe.
 *
 * @publicApi
 */
export interface ClusterState {
  nodeId: string;
  /** Whether the shared directory answers right now. */
  redis: 'up' | 'down';
  /** Session leases this node holds. */
  leases: number;
}

/**
 * Who may run a session: the runtime claims a session before it starts,
 * releases it when it closes, and asks before it writes the session's
 * transcript. A single daemon owns every session it starts
 * ({@link LocalSessionOwnership}); in a cluster, a lease in a shared directory
 * decides, and losing it closes the local session.
 *
 * @publicApi
 */
export abstract class SessionOwnership {
  private readonly lossListeners: Array<(sessionId: string) => void> = [];
  private claimGuard?: () => Error | undefined;

  /**
   * Makes this node the session's owner before it starts (idempotent for a
   * session this node already owns). Throws an `ApiException` when it cannot:
   * another node owns it, or the directory is unreachable.
   */
  abstract claim(sessionId: string): Promise<void>;

  /** Gives the session up after it closed. Never throws. */
  abstract release(sessionId: string): Promise<void>;

  /**
   * True while this node still owns the session: synchronous while the
   * ownership is known to be current, a promise when it must be re-checked
   * (and `false` once it is lost, after the loss listeners ran).
   */
  abstract confirm(sessionId: string): boolean | Promise<boolean>;

  /**
   * True while this node may append to the session's transcript and ledger:
   * what `confirm` says, unless an implementation can tell a lease it cannot
   * verify from one it lost.
   */
  mayWrite(sessionId: string): boolean | Promise<boolean> {
    return this.confirm(sessionId);
  }

  /**
   * The fence of the lease this node holds for the session, which every line
   * it appends to the session's transcript and ledger carries; `undefined`
   * for a single daemon (its lines carry none) or a session not held.
   */
  fenceOf(_sessionId: string): number | undefined {
    return undefined;
  }

  /**
   * How often to look for sessions that no node holds, to settle the prompts
   * a dead owner left in flight; `undefined` (a single daemon, which owns every
   * session): once, at start.
   */
  get unownedSweepMs(): number | undefined {
    return undefined;
  }

  /**
   * Whether a session that no node holds may be taken for being unowned now:
   * a cluster node waits a lease after it (re)connects to its directory, which
   * may have restarted empty before live owners renewed their leases.
   */
  mayClaimUnowned(): boolean {
    return true;
  }

  /**
   * Whether the sweep may take the session for unowned: a cluster node must
   * have found it without a lease at two lookups a lease apart (a live owner
   * whose lease an emptied Redis lost re-creates it within a third of one).
   * A single daemon owns every session: true.
   */
  seenUnowned(_sessionId: string): Promise<boolean> {
    return Promise.resolve(true);
  }

  /** The node's cluster view; `undefined` for a single daemon. */
  clusterState(): ClusterState | undefined {
    return undefined;
  }

  /**
   * Registers the check a new claim passes first: the runtime refuses one for
   * a session it could not start (`503 too_many_sessions`), before a cluster's
   * claim asks another node to let the session go.
   */
  guardClaims(guard: () => Error | undefined): void {
    this.claimGuard = guard;
  }

  /** For implementations: why a new claim is refused now, if it is. */
  protected claimRefused(): Error | undefined {
    return this.claimGuard?.();
  }

  /** Registers what happens when ownership is lost behind this node's back. */
  onLoss(listener: (sessionId: string) => void): void {
    this.lossListeners.push(listener);
  }

  /** For implementations: ownership of `sessionId` is gone; close it locally. */
  protected lost(sessionId: string): void {
    for (const listener of this.lossListeners) listener(sessionId);
  }
}

/**
 * One daemon, no directory: it owns every session it starts.
 *
 * @publicApi
 */
export class LocalSessionOwnership extends SessionOwnership {
  claim(): Promise<void> {
    return Promise.resolve();
  }

  release(): Promise<void> {
    return Promise.resolve();
  }

  confirm(): boolean {
    return true;
  }
}
