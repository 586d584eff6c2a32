import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { CLAIM, CLAIM_OUTBOX, HEARTBEAT, RELEASE, RENEW } from './lease-scripts.js';

/**
 * A session's owner as the directory records it. `fence` comes from one
 * counter that only grows: a later claim always carries a larger number.
 *
 * @publicApi
 */
export interface Lease {
  node: string;
  url: string;
  fence: number;
}

/** A node as it heartbeats into the directory. @publicApi */
export interface NodeRecord {
  nodeId: string;
  url: string;
  sessions: number;
  startedAt: number;
  heartbeatAt: number;
}

/**
 * What a renewal did to one lease: extended it, re-created it (it was gone:
 * another node may have claimed and released it meanwhile, so the recorded
 * fence decides), or found it another node's. @publicApi
 */
export type RenewOutcome = 'extended' | 'recreated' | 'lost';

const RENEW_OUTCOMES: readonly RenewOutcome[] = ['lost', 'extended', 'recreated'];

/**
 * Outcome of a claim: this node's fence, or the lease another node holds.
 * A won claim also says whether Redis had lost its fence counter (`reset`:
 * it was below the recorded floor, so Redis lost its data and with it every
 * heartbeat), whether Redis lost its data less than a lease ago
 * (`emptied`: its generation started over or went back, see `lease-scripts.ts`), whether the node named as `previous` heartbeats
 * (`previousAlive`), and whether this node's own heartbeat was there
 * (`selfAlive`: when not, Redis lost keys since this node's last tick, and
 * a missing heartbeat proves nothing): what decides that the previous owner
 * is asked to let go.
 *
 * @publicApi
 */
export type ClaimResult =
  { won: true; fence: number; reset: boolean; emptied: boolean; previousAlive: boolean; selfAlive: boolean } | { won: false; owner: Lease };

type Reply = [number, string, string, string, number, number, number, number, number];

interface ScriptedRedis extends Redis {
  turnsClaim(
    lease: string,
    counter: string,
    heartbeat: string,
    ownHeartbeat: string,
    generation: string,
    marker: string,
    node: string,
    url: string,
    ttl: number,
    floor: number,
    lookAtPrevious: '0' | '1',
    seen: number,
  ): Promise<Reply>;
  turnsRenew(...args: Array<string | number>): Promise<number[]>;
  turnsRelease(lease: string, fence: number): Promise<number>;
  turnsHeartbeat(
    key: string,
    generation: string,
    marker: string,
    record: string,
    ttl: number,
    refreshOnly: '0' | '1',
    seen: number,
  ): Promise<number>;
  turnsClaimOutbox(
    key: string,
    generation: string,
    marker: string,
    node: string,
    ttl: number,
    leaseMs: number,
    seen: number,
  ): Promise<[number, number]>;
}

/**
 * The cluster's shared directory in Redis: session leases (claim, renew,
 * release, look up) and node heartbeats. Every call is one round trip; a
 * Redis that is down makes each call reject at once (no offline queue).
 *
 * @publicApi
 */
export class LeaseDirectory {
  private readonly redis: ScriptedRedis;
  private connections = 0;
  /**
   * The data generation this node last got from Redis: its scripts pass it,
   * and a count that went back below it means Redis lost writes. Replies on
   * one connection come in order, so the last one is the latest.
   */
  private generation = 0;

  constructor(
    redis: Redis,
    private readonly leaseMs: number,
    private readonly prefix = 'turns:',
  ) {
    redis.defineCommand('turnsClaim', { numberOfKeys: 6, lua: CLAIM });
    redis.defineCommand('turnsHeartbeat', { numberOfKeys: 3, lua: HEARTBEAT });
    redis.defineCommand('turnsClaimOutbox', { numberOfKeys: 3, lua: CLAIM_OUTBOX });
    redis.defineCommand('turnsRenew', { lua: RENEW });
    redis.defineCommand('turnsRelease', { numberOfKeys: 1, lua: RELEASE });
    this.redis = redis as ScriptedRedis;
    redis.on('ready', () => {
      this.connections += 1;
      this.connectedAt = this.monotonic();
    });
  }

  /**
   * The monotonic clock (ms) connections are stamped with: the one the
   * session ownership compares {@link connectedAt} against (it shares it).
   */
  monotonic: () => number = () => performance.now();

  /**
   * When the current connection was made (monotonic ms): until a lease has
   * passed since, a missing heartbeat may only mean a Redis that restarted
   * empty and a node that has not announced itself again yet.
   */
  connectedAt = -Infinity;

  /**
   * Counts the connections made so far: a lease renewed over an earlier one
   * may be gone (Redis restarted empty in between), so it is asked about again.
   */
  get epoch(): number {
    return this.connections;
  }

  private leaseKey(sessionId: string): string {
    return `${this.prefix}lease:${sessionId}`;
  }

  private get counterKey(): string {
    return `${this.prefix}fence`;
  }

  /** The data generation and the emptied marker of the scripts' `emptied`. */
  private get emptiedKeys(): [string, string] {
    return [`${this.prefix}data`, `${this.prefix}data-lost`];
  }

  private saw(generation: number): void {
    this.generation = Number(generation);
  }

  /**
   * Claims the lease; a won fence is above `floor`, the highest fence the
   * session had (recorded by `SessionFences`). `previous`: the node that
   * claimed it before, whose heartbeat the same step looks at.
   */
  async claim(sessionId: string, self: { node: string; url: string }, floor = 0, previous?: string): Promise<ClaimResult> {
    const [won, node, url, fence, reset, alive, selfAlive, emptied, generation] = await this.redis.turnsClaim(
      this.leaseKey(sessionId),
      this.counterKey,
      this.nodeKey(previous ?? self.node),
      this.nodeKey(self.node),
      ...this.emptiedKeys,
      self.node,
      self.url,
      this.leaseMs,
      floor,
      previous === undefined ? '0' : '1',
      this.generation,
    );
    this.saw(generation);
    return won === 1
      ? {
          won: true,
          fence: Number(fence),
          reset: reset === 1,
          emptied: emptied === 1,
          previousAlive: alive === 1,
          selfAlive: selfAlive === 1,
        }
      : { won: false, owner: { node, url, fence: Number(fence) } };
  }

  /**
   * Extends this node's leases (re-creating one that is gone); `lost` at the
   * index of each one another node took (or, with `extendOnly`, that is gone).
   */
  async renew(
    leases: ReadonlyArray<{ sessionId: string; fence: number; extendOnly?: boolean }>,
    self: { node: string; url: string },
  ): Promise<RenewOutcome[]> {
    if (leases.length === 0) return [];
    const keys = leases.map((lease) => this.leaseKey(lease.sessionId));
    const fences = leases.map((lease) => `${lease.extendOnly ? 'x' : ''}${lease.fence}`);
    const kept = await this.redis.turnsRenew(1 + keys.length, this.counterKey, ...keys, self.node, self.url, this.leaseMs, ...fences);
    return kept.map((flag) => RENEW_OUTCOMES[flag] ?? 'lost');
  }

  async release(sessionId: string, fence: number): Promise<void> {
    await this.redis.turnsRelease(this.leaseKey(sessionId), fence);
  }

  /** The current lease of a session, if any node holds one. */
  async owner(sessionId: string): Promise<Lease | undefined> {
    return (await this.lookup(sessionId))?.lease;
  }

  /**
   * The current lease and the time (ms) Redis gives it before it expires,
   * read together: a node that caches the owner must not outlive the lease.
   */
  async lookup(sessionId: string): Promise<{ lease: Lease; ttlMs: number } | undefined> {
    const key = this.leaseKey(sessionId);
    const replies = await this.redis.multi().hmget(key, 'node', 'url', 'fence').pttl(key).exec();
    const [[fieldsError, fields], [ttlError, ttl]] = replies as [[Error | null, (string | null)[]], [Error | null, number]];
    if (fieldsError || ttlError) throw fieldsError ?? ttlError;
    const [node, url, fence] = fields;
    // PTTL is -1 for a key without an expiry (never written so by a claim): no bound from Redis then.
    return node && url && fence ? { lease: { node, url, fence: Number(fence) }, ttlMs: ttl >= 0 ? ttl : Infinity } : undefined;
  }

  /** Whether a node holds the session's lease (one key lookup, no fields read). */
  async leased(sessionId: string): Promise<boolean> {
    return (await this.redis.exists(this.leaseKey(sessionId))) === 1;
  }

  /** True while connected; calls made otherwise reject at once. */
  get connected(): boolean {
    return this.redis.status === 'ready';
  }

  /** Resolves once connected, or after `timeoutMs` either way. */
  async ready(timeoutMs: number): Promise<void> {
    if (this.connected) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.redis.once('ready', done);
    });
  }

  async close(): Promise<void> {
    if (this.redis.status === 'end') return;
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /**
   * Announces the node for a lease; `refreshOnly` updates the record of a
   * heartbeat that is there and keeps its expiry, so only a heartbeat sent
   * with the lease renewals (before them) makes it live longer: it never
   * outlives this node's leases, and a claimer that finds it gone asks nobody.
   */
  async heartbeat(node: NodeRecord, refreshOnly = false): Promise<void> {
    const record = JSON.stringify(node);
    const generation = await this.redis.turnsHeartbeat(
      this.nodeKey(node.nodeId),
      ...this.emptiedKeys,
      record,
      this.leaseMs,
      refreshOnly ? '1' : '0',
      this.generation,
    );
    this.saw(generation);
  }

  private nodeKey(nodeId: string): string {
    return `${this.prefix}node:${nodeId}`;
  }

  /**
   * Takes the right, for `ms`, to adopt a dead node's webhook outbox: one live
   * node does it, not all; never while Redis lost data less than a lease ago.
   */
  async claimOutbox(deadNodeId: string, self: string, ms: number): Promise<boolean> {
    const key = `${this.prefix}webhooks:adopt:${deadNodeId}`;
    const [claimed, generation] = await this.redis.turnsClaimOutbox(key, ...this.emptiedKeys, self, ms, this.leaseMs, this.generation);
    this.saw(generation);
    return claimed === 1;
  }

  async forgetNode(nodeId: string): Promise<void> {
    await this.redis.del(this.nodeKey(nodeId));
  }

  /** Nodes whose heartbeat is younger than a lease. */
  async nodes(): Promise<NodeRecord[]> {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await this.redis.scan(cursor, 'MATCH', `${this.prefix}node:*`, 'COUNT', 100);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    if (keys.length === 0) return [];
    const values = await this.redis.mget(...keys);
    return values
      .filter((value): value is string => value !== null)
      .map((value) => JSON.parse(value) as NodeRecord)
      .sort((a, b) => a.nodeId.localeCompare(b.nodeId));
  }
}
