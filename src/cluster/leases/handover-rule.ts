import type { FenceHolder } from './session-fences.js';

/** What a won claim knows of the claim before it. */
export interface PreviousClaim {
  /** Who recorded the highest fence before this claim (unknown for an earlier version's empty file). */
  holder?: FenceHolder;
  /** Redis had lost its fence counter, and with it every heartbeat: a live node may look dead. */
  reset: boolean;
  /**
   * Redis lost data less than a lease ago (its generation started over or
   * went back): every heartbeat with it, whatever the counter says — other
   * claims since may have raised it past this session's fence.
   */
  emptied: boolean;
  /** The previous holder's heartbeat was there when the claim was made. */
  previousAlive: boolean;
  /**
   * This node's own heartbeat was there: when not, Redis lost keys since its
   * last tick (a restart, `FLUSHALL`, an eviction), and another node's
   * missing heartbeat says nothing either.
   */
  selfAlive: boolean;
}

/**
 * True when the node that claimed the session before may still serve it from a lease it trusts in memory, so the
 * claimer asks it to let go first (docs/cluster.md#inv-lease-5): another node, heartbeating (docs/cluster.md#inv-lease-3),
 * or of unknown state because Redis lost its data (docs/cluster.md#inv-lease-6).
 */
export function mustAskPrevious(self: string, previous: PreviousClaim): previous is PreviousClaim & { holder: FenceHolder } {
  return (
    previous.holder !== undefined &&
    previous.holder.node !== self &&
    (previous.previousAlive || previous.reset || previous.emptied || !previous.selfAlive)
  );
}

/**
 * When a previous owner that could not be asked has stopped trusting its
 * lease: it trusts it for 80% of a lease after it *sent* its last renewal,
 * which Redis handled before this claim, so before `claimRepliedAt`; a whole
 * lease after that reply is past it on any clock that runs at the same rate.
 */
export function previousTrustEndsBy(claimRepliedAt: number, leaseMs: number): number {
  return claimRepliedAt + leaseMs;
}
