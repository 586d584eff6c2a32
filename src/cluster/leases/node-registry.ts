import { Injectable } from '@nestjs/common';
import { HEARTBEAT_SCRIPT } from './heartbeat-script.js';
import { LeaseDirectory } from './lease-directory.js';

/** A node as it heartbeats into the directory. @publicApi */
export interface NodeRecord {
  nodeId: string;
  url: string;
  sessions: number;
  startedAt: number;
  heartbeatAt: number;
}

/**
 * The nodes that heartbeat into the directory: a heartbeat lives a lease, and never outlives the node's leases
 * (docs/cluster.md#inv-lease-3).
 *
 * @publicApi
 */
@Injectable()
export class NodeRegistry {
  constructor(private readonly directory: LeaseDirectory) {}

  /** Announces the node for a lease; `refreshOnly` updates the record of a heartbeat that is there and keeps its expiry. */
  async heartbeat(node: NodeRecord, refreshOnly = false): Promise<void> {
    await this.directory.runCounted(HEARTBEAT_SCRIPT, {
      heartbeat: this.directory.keys.node(node.nodeId),
      data: this.directory.keys.data,
      record: JSON.stringify(node),
      ttlMs: this.directory.leaseMs,
      refreshOnly,
    });
  }

  async forgetNode(nodeId: string): Promise<void> {
    await this.directory.redis.del(this.directory.keys.node(nodeId));
  }

  /** Nodes whose heartbeat is younger than a lease, by id. */
  async nodes(): Promise<NodeRecord[]> {
    const { redis, keys } = this.directory;
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', keys.nodes, 'COUNT', 100);
      found.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    if (found.length === 0) return [];
    const values = await redis.mget(...found);
    return values
      .filter((value): value is string => value !== null)
      .map((value) => JSON.parse(value) as NodeRecord)
      .sort((a, b) => a.nodeId.localeCompare(b.nodeId));
  }
}
