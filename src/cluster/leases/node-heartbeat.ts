import type { ClusterNode } from '../node/cluster-node.js';
import type { NodeRegistry } from './node-registry.js';

/** How soon a changed session count is announced: at most one write per this many ms. */
const ANNOUNCE_MS = 100;

/**
 * The node's heartbeat in the directory: sent by each renewal tick just before the leases' renewal
 * (docs/cluster.md#inv-lease-3), and refreshed, its expiry kept, when the count of sessions held changes, so
 * `GET /cluster/nodes` shows it within 100 ms.
 */
export class NodeHeartbeat {
  private announcing?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly registry: NodeRegistry,
    private readonly node: ClusterNode,
    private readonly sessions: () => number,
  ) {}

  /** The tick's heartbeat: the only write that makes it live longer. Never rejects. */
  beat(): Promise<void> {
    return this.send(false);
  }

  /** Announces a changed session count soon, without making the heartbeat live longer. */
  announceSoon(): void {
    if (this.announcing || this.stopped) return;
    this.announcing = setTimeout(() => {
      this.announcing = undefined;
      void this.send(true);
    }, ANNOUNCE_MS);
    this.announcing.unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.announcing);
  }

  /** Removes the heartbeat (a node shutting down). Never rejects. */
  forget(): Promise<void> {
    return this.registry.forgetNode(this.node.id).catch(() => undefined);
  }

  private async send(refreshOnly: boolean): Promise<void> {
    if (!this.node.listening) return;
    const { id: nodeId, url, startedAt } = this.node;
    const record = { nodeId, url, sessions: this.sessions(), startedAt, heartbeatAt: Date.now() };
    await this.registry.heartbeat(record, refreshOnly).catch(() => undefined);
  }
}
