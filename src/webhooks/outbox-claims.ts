/**
 * Who may adopt a dead node's webhook outbox — the port cluster mode fills
 * (Redis heartbeats and claims); without it every node's outbox is its own.
 */
export abstract class OutboxClaims {
  /** How often the outboxes of other nodes are looked at, in ms. */
  abstract readonly intervalMs: number;
  /** Whether this node takes part now (it serves requests). */
  abstract active(): boolean;
  /** The nodes alive now (a heartbeat); may reject (the directory is unreachable): tried again later. */
  abstract liveNodeIds(): Promise<ReadonlySet<string>>;
  /** Claims a dead node's outbox for this node: true for the one live node that wins it. */
  abstract claim(deadNodeId: string): Promise<boolean>;
}
