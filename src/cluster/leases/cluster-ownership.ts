import { SessionOwnership, type ClusterState } from '../../sessions/session-ownership.js';

/**
 * Session ownership as the cluster's own code asks it (its router, its peer route, its outbox claims): what a lease
 * holder answers beyond the runtime's {@link SessionOwnership}.
 *
 * @publicApi
 */
export abstract class ClusterOwnership extends SessionOwnership {
  /** True when this node holds the session's lease (fresh or not) and its claim has resolved. */
  abstract holds(sessionId: string): boolean;

  /**
   * A claim of `fence` asks this node to let go of the session (docs/cluster.md#inv-lease-5): it is closed here when
   * its lease is of a lower fence and the data dir records `fence`. True when it was held.
   */
  abstract yieldTo(sessionId: string, fence: number): Promise<boolean>;

  /** Renews every lease and heartbeats (docs/cluster.md#inv-lease-3); specs that drive time call it themselves. */
  abstract tick(): Promise<void>;

  abstract override clusterState(): ClusterState;
}
