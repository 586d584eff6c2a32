import { Injectable } from '@nestjs/common';
import { CLAIM_SCRIPT } from './claim-script.js';
import type { ClaimResult, Lease, RenewOutcome } from './lease.js';
import { LeaseDirectory } from './lease-directory.js';
import { RELEASE_SCRIPT } from './release-script.js';
import { RENEW_SCRIPT } from './renew-script.js';

/** A node as a claim names it. */
export interface LeaseHolder {
  node: string;
  url: string;
}

/**
 * The session leases in the directory: claim, renew, release, look up. A lease is a hash `{node, url, fence}` with an
 * expiry; each write is one script, so two nodes never both win (docs/cluster.md#inv-lease-1).
 *
 * @publicApi
 */
@Injectable()
export class LeaseStore {
  constructor(readonly directory: LeaseDirectory) {}

  /**
   * Claims the lease; a won fence is above `floor`, the highest one the session had (recorded by `SessionFences`).
   * `previous`: the node that claimed it before, whose heartbeat the same step looks at.
   */
  async claim(sessionId: string, self: LeaseHolder, floor = 0, previous?: string): Promise<ClaimResult> {
    const { keys } = this.directory;
    const reply = await this.directory.runCounted(CLAIM_SCRIPT, {
      lease: keys.lease(sessionId),
      fenceCounter: keys.fenceCounter,
      previousHeartbeat: keys.node(previous ?? self.node),
      ownHeartbeat: keys.node(self.node),
      data: keys.data,
      node: self.node,
      url: self.url,
      ttlMs: this.directory.leaseMs,
      floor,
      lookAtPrevious: previous !== undefined,
    });
    return reply.result;
  }

  /** Extends this node's leases (re-creating one that is gone): one outcome per lease, in the order given. */
  async renew(
    leases: ReadonlyArray<{ sessionId: string; fence: number; extendOnly?: boolean }>,
    self: LeaseHolder,
  ): Promise<RenewOutcome[]> {
    if (leases.length === 0) return [];
    const { keys } = this.directory;
    return this.directory.run(RENEW_SCRIPT, {
      fenceCounter: keys.fenceCounter,
      leases: leases.map(({ sessionId, fence, extendOnly }) => ({ key: keys.lease(sessionId), fence, extendOnly })),
      node: self.node,
      url: self.url,
      ttlMs: this.directory.leaseMs,
    });
  }

  /** Deletes the lease while it still carries `fence`. */
  async release(sessionId: string, fence: number): Promise<void> {
    await this.directory.run(RELEASE_SCRIPT, { lease: this.directory.keys.lease(sessionId), fence });
  }

  /** The current lease of a session, if any node holds one. */
  async owner(sessionId: string): Promise<Lease | undefined> {
    return (await this.lookup(sessionId))?.lease;
  }

  /** The current lease and the time (ms) Redis gives it, read together: a cached owner must not outlive the lease. */
  async lookup(sessionId: string): Promise<{ lease: Lease; ttlMs: number } | undefined> {
    const key = this.directory.keys.lease(sessionId);
    const replies = await this.directory.redis.multi().hmget(key, 'node', 'url', 'fence').pttl(key).exec();
    const [[fieldsError, fields], [ttlError, ttl]] = replies as [[Error | null, (string | null)[]], [Error | null, number]];
    if (fieldsError || ttlError) throw fieldsError ?? ttlError;
    const [node, url, fence] = fields;
    // PTTL is -1 for a key without an expiry (never written so by a claim): no bound from Redis then.
    return node && url && fence ? { lease: { node, url, fence: Number(fence) }, ttlMs: ttl >= 0 ? ttl : Infinity } : undefined;
  }

  /** Whether a node holds the session's lease (one key lookup, no fields read). */
  async leased(sessionId: string): Promise<boolean> {
    return (await this.directory.redis.exists(this.directory.keys.lease(sessionId))) === 1;
  }
}
