import type { ClusterState, ClusterView } from '../../sessions/cluster-view.js';
import { SessionOwnership } from '../../sessions/session-ownership.js';
import type { SessionWriteFence } from '../../sessions/session-write-fence.js';
import type { UnownedSessions } from '../../sessions/unowned-sessions.js';

/**
 * Session ownership as a lease holder answers it: the runtime's {@link SessionOwnership}, what the cluster's own code
 * asks (its router, its peer route), and the ports only a cluster answers, which `ClusterModule` binds to it: the
 * writers' fence, the sweep's view of unowned sessions and the status's cluster state (docs/cluster.md#ownership-ports).
 *
 * @publicApi
 */
export abstract class ClusterOwnership extends SessionOwnership implements SessionWriteFence, UnownedSessions, ClusterView {
  /** True when this node holds the session's lease (fresh or not) and its claim has resolved. */
  abstract holds(sessionId: string): boolean;

  /**
   * A claim of `fence` asks this node to let go of the session (docs/cluster.md#inv-lease-5): it is closed here when
   * its lease is of a lower fence and the data dir records `fence`. True when it was held.
   */
  abstract yieldTo(sessionId: string, fence: number): Promise<boolean>;

  /** Renews every lease and heartbeats (docs/cluster.md#inv-lease-3); specs that drive time call it themselves. */
  abstract tick(): Promise<void>;

  abstract mayWrite(sessionId: string): Promise<boolean>;
  abstract fenceOf(sessionId: string): number | undefined;
  abstract get unownedSweepMs(): number;
  abstract mayClaimUnowned(): boolean;
  abstract seenUnowned(sessionId: string): Promise<boolean>;
  abstract clusterState(): ClusterState;
}
