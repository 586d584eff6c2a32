import type { GenerationKeys } from './redis-script.js';

/** The directory's key names in Redis, all under one prefix. */
export class DirectoryKeys {
  constructor(private readonly prefix = 'turns:') {}

  lease(sessionId: string): string {
    return `${this.prefix}lease:${sessionId}`;
  }

  node(nodeId: string): string {
    return `${this.prefix}node:${nodeId}`;
  }

  /** The pattern every node's heartbeat key matches. */
  get nodes(): string {
    return `${this.prefix}node:*`;
  }

  /** The counter every fence is drawn from. */
  get fenceCounter(): string {
    return `${this.prefix}fence`;
  }

  get data(): GenerationKeys {
    return { generation: `${this.prefix}data`, lost: `${this.prefix}data-lost` };
  }

  outboxClaim(deadNodeId: string): string {
    return `${this.prefix}webhooks:adopt:${deadNodeId}`;
  }
}
