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
 * What the daemon's status, readiness probe and metrics read of the cluster. Only cluster mode binds it: a single
 * daemon has none, and its status shows no `cluster` block.
 *
 * @publicApi
 */
export abstract class ClusterView {
  /** The node's cluster state now (read on each status request and scrape). */
  abstract clusterState(): ClusterState;
}
