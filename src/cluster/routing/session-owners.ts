/** A session's owner as the router forwards to it. */
export interface SessionOwner {
  node: string;
  url: string;
}

/**
 * What the router asks of the lease side, bound in `ClusterModule`, so routing/ imports nothing of the leases
 * (docs/cluster.md#layout).
 */
export abstract class SessionOwners {
  /** True when this node holds the session's lease (fresh or not) and its claim has resolved. */
  abstract holds(sessionId: string): boolean;
  /** True when the lease held here is still this node's: at once while fresh, else once Redis is asked. */
  abstract confirm(sessionId: string): boolean | Promise<boolean>;
  /** Claims the session for this node; rejects `409 session_on_other_node` when another node won it. */
  abstract claim(sessionId: string): Promise<void>;
  /** The owner in the directory and its lease's time left (ms); rejects when the directory cannot be asked. */
  abstract lookup(sessionId: string): Promise<{ lease: SessionOwner; ttlMs: number } | undefined>;
}
