/**
 * The lost-prompt sweep's view of sessions no node holds (docs/decisions.md#the-lost-prompt-sweep): how often to look,
 * and whether a session found unowned may be taken. Cluster mode binds its own; a single daemon, which owns every
 * session it finds, uses {@link LocalUnownedSessions}.
 *
 * @publicApi
 */
export abstract class UnownedSessions {
  /** How often to look for sessions no node holds; `undefined`: once, at start. */
  abstract get unownedSweepMs(): number | undefined;

  /**
   * Whether a session no node holds may be taken for unowned now: a cluster node waits a lease after it (re)connects
   * to its directory, which may have restarted empty before live owners renewed their leases.
   */
  abstract mayClaimUnowned(): boolean;

  /**
   * Whether the sweep may take the session for unowned: a cluster node must have found it without a lease at two
   * lookups a lease apart (a live owner whose lease an emptied Redis lost re-creates it within a third of one).
   */
  abstract seenUnowned(sessionId: string): Promise<boolean>;
}

/**
 * A single daemon: it owns every session it finds, so it sweeps once, at start, and takes each one.
 *
 * @publicApi
 */
export class LocalUnownedSessions extends UnownedSessions {
  get unownedSweepMs(): undefined {
    return undefined;
  }

  mayClaimUnowned(): boolean {
    return true;
  }

  seenUnowned(): Promise<boolean> {
    return Promise.resolve(true);
  }
}
