import { Inject, Injectable } from '@nestjs/common';
import { OutboxClaims } from '../webhooks/outbox-claims.js';
import { ClusterNode } from './node/cluster-node.js';
import { CLUSTER_SETTINGS, type ClusterSettings } from './node/cluster.settings.js';
import { LeaseDirectory } from './lease-directory.js';
import { RedisSessionOwnership } from './redis-session-ownership.js';

/**
 * Cluster mode's {@link OutboxClaims}: a node is dead once its heartbeat in
 * Redis has expired (dead, not slow for a moment) — asked only over a
 * connection older than a lease, as for a session nobody holds — and its
 * outbox goes to the live node that sets the claim key first.
 */
@Injectable()
export class RedisOutboxClaims extends OutboxClaims {
  readonly intervalMs: number;

  constructor(
    private readonly directory: LeaseDirectory,
    private readonly node: ClusterNode,
    private readonly ownership: RedisSessionOwnership,
    @Inject(CLUSTER_SETTINGS) private readonly settings: ClusterSettings,
  ) {
    super();
    this.intervalMs = settings.leaseMs;
  }

  /** Serving, over a connection older than a lease: after Redis restarts empty, live nodes have no heartbeat until they renew. */
  active(): boolean {
    return this.ownership.mayClaimUnowned();
  }

  async liveNodeIds(): Promise<ReadonlySet<string>> {
    return new Set((await this.directory.nodes()).map((n) => n.nodeId));
  }

  claim(deadNodeId: string): Promise<boolean> {
    return this.directory.claimOutbox(deadNodeId, this.node.id, this.settings.leaseMs);
  }
}
