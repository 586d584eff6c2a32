/** A lease this node holds, as it counts its time. */
export interface HeldLease {
  fence: number;
  /** The directory's connection the lease was last confirmed over. */
  epoch: number;
  /** Monotonic time until which the lease is known to be ours without asking Redis. */
  validUntil: number;
}

/** A lease set at `sentAt` is trusted for 80% of its time (docs/cluster.md#inv-lease-2): Redis started counting later, clocks drift a little. */
export function freshUntil(sentAt: number, leaseMs: number): number {
  return sentAt + leaseMs * 0.8;
}

/**
 * Ours to serve at `at`: fresh, or gone stale only because Redis became
 * unreachable (at `unreachableSince`) while it was fresh — not because this
 * process was paused past it.
 */
export function usable(lease: HeldLease, at: number, unreachableSince: number | undefined): boolean {
  return at < lease.validUntil || (unreachableSince !== undefined && unreachableSince < lease.validUntil);
}

/**
 * Stale, and Redis was already unreachable when it went stale: when Redis
 * answers again, a lease of ours that is gone may be one Redis lost with
 * another node's claim, so it is only extended, never re-created.
 */
export function staleInOutage(lease: HeldLease, at: number, unreachableSince: number | undefined): boolean {
  return !usable(lease, at, unreachableSince) && unreachableSince !== undefined;
}
