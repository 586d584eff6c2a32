/**
 * Who may run a session: the runtime claims a session before it starts,
 * releases it when it closes, and confirms it is still the owner. A single
 * daemon owns every session it starts ({@link LocalSessionOwnership}); in a
 * cluster, a lease in a shared directory decides, and losing it closes the
 * local session. What only a cluster answers is on ports of their own
 * (`SessionWriteFence`, `UnownedSessions`, `ClusterView`; docs/cluster.md#ownership-ports).
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
