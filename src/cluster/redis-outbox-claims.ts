import { performance } from 'node:perf_hooks';
import { Inject, Injectable } from '@nestjs/common';
import { OutboxClaims } from '../webhooks/outbox-claims.js';
import { ClusterNode } from './cluster-node.js';
import { CLUSTER_SETTINGS, type ClusterSettings } from './cluster-options.js';
import { LeaseDirectory } from './lease-directory.js';

/**
 * Cluster mode's {@link OutboxClaims}: a node is dead once its heartbeat in
 * Redis has expired (dead, not slow for a moment) — asked only over a
 * connection older than a lease — and its outbox goes to the live node that
 * sets the claim key first.
 */
@Injectable()
export class RedisOutboxClaims extends OutboxClaims {
  readonly intervalMs: number;
  /** The clock `LeaseDirectory.connectedAt` is read on (monotonic ms); tests drive it. */
  monotonic: () => number = () => performance.now();

  constructor(
    private readonly directory: LeaseDirectory,
    private readonly node: ClusterNode,
    @Inject(CLUSTER_SETTINGS) private readonly settings: ClusterSettings,
  ) {
    super();
    this.intervalMs = settings.leaseMs;
  }

  /**
   * Serving, and connected for more than a lease: after Redis restarts empty
   * no node has a heartbeat until its next renewal, and a live node's outbox
   * must not look dead meanwhile.
   */
  active(): boolean {
    return this.node.listening && this.directory.connected && this.monotonic() - this.directory.connectedAt > this.settings.leaseMs;
  }

  async liveNodeIds(): Promise<ReadonlySet<string>> {
    return new Set((await this.directory.nodes()).map((n) => n.nodeId));
  }

  claim(deadNodeId: string): Promise<boolean> {
    return this.directory.claimOutbox(deadNodeId, this.node.id, this.settings.leaseMs);
  }
}
