import { Inject, Injectable } from '@nestjs/common';
import { UnownedSessions } from '../../sessions/unowned-sessions.js';
import { OutboxClaims } from '../../webhooks/outbox-claims.js';
import { ClusterNode } from '../node/cluster-node.js';
import { CLUSTER_SETTINGS, type ClusterSettings } from '../node/cluster.settings.js';
import { LeaseDirectory } from './lease-directory.js';
import { NodeRegistry } from './node-registry.js';
import { OUTBOX_CLAIM_SCRIPT } from './outbox-claim-script.js';

/**
 * Cluster mode's {@link OutboxClaims}: a node is dead once its heartbeat has expired, asked only over a connection
 * older than a lease (docs/cluster.md#inv-lease-6), and its outbox goes to the live node that sets the claim key first.
 */
@Injectable()
export class RedisOutboxClaims extends OutboxClaims {
  readonly intervalMs: number;

  constructor(
    private readonly directory: LeaseDirectory,
    private readonly nodes: NodeRegistry,
    private readonly node: ClusterNode,
    private readonly unowned: UnownedSessions,
    @Inject(CLUSTER_SETTINGS) private readonly settings: ClusterSettings,
  ) {
    super();
    this.intervalMs = settings.leaseMs;
  }

  /** Serving, over a connection older than a lease: after Redis restarts empty, live nodes have no heartbeat until they renew. */
  active(): boolean {
    return this.unowned.mayClaimUnowned();
  }

  async liveNodeIds(): Promise<ReadonlySet<string>> {
    return new Set((await this.nodes.nodes()).map((n) => n.nodeId));
  }

  /** Takes the right, for a lease, to adopt a dead node's outbox: one live node does it, never within a lease of a data loss. */
  async claim(deadNodeId: string): Promise<boolean> {
    const reply = await this.directory.runCounted(OUTBOX_CLAIM_SCRIPT, {
      claim: this.directory.keys.outboxClaim(deadNodeId),
      data: this.directory.keys.data,
      node: this.node.id,
      ttlMs: this.settings.leaseMs,
      leaseMs: this.directory.leaseMs,
    });
    return reply.claimed;
  }
}
