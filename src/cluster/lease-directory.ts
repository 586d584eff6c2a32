import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';

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
 * heartbeat), whether the node named as `previous` heartbeats
 * (`previousAlive`), and whether this node's own heartbeat was there
 * (`selfAlive`: when not, Redis lost keys since this node's last tick, and
 * a missing heartbeat proves nothing): what decides that the previous owner
 * is asked to let go.
 *
 * @publicApi
 */
export type ClaimResult =
  { won: true; fence: number; reset: boolean; previousAlive: boolean; selfAlive: boolean } | { won: false; owner: Lease };

// Each script reads and writes in one step, so two nodes never both win.
// A lease is a hash {node, url, fence} with a TTL.

/**
 * KEYS: lease, fence counter, the previous owner's heartbeat, this node's.
 * ARGV: node, url, ttl, floor, whether to look at the previous owner's
 * heartbeat ('1'). Wins when absent or already this node's; the fence is
 * above `floor` (the highest one recorded outside Redis) even when Redis lost
 * its counter — which it reports as a reset — and whether each heartbeat is there.
 */
const CLAIM = `
local node = redis.call('HGET', KEYS[1], 'node')
if node and node ~= ARGV[1] then
  return {0, node, redis.call('HGET', KEYS[1], 'url'), redis.call('HGET', KEYS[1], 'fence')}
end
local fence = redis.call('INCR', KEYS[2])
local reset = 0
if fence <= tonumber(ARGV[4]) then
  fence = tonumber(ARGV[4]) + 1
  reset = 1
  redis.call('SET', KEYS[2], fence)
end
redis.call('HSET', KEYS[1], 'node', ARGV[1], 'url', ARGV[2], 'fence', fence)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
local alive = 0
if ARGV[5] == '1' then alive = redis.call('EXISTS', KEYS[3]) end
return {1, ARGV[1], ARGV[2], tostring(fence), reset, alive, redis.call('EXISTS', KEYS[4])}
`;

/**
 * KEYS: fence counter, lease 1..n. ARGV: node, url, ttl, fence 1..n.
 * Extends each lease still carrying this node's name and fence (1); re-creates one that is
 * gone (expired while nobody claimed it, or Redis lost its data) and keeps
 * the counter at least that high (2); reports 0 for a lease another claim took.
 * A fence written `x<fence>` is only extended, never re-created: a lease
 * that went stale while Redis was unreachable may have been claimed by
 * another node just before, and that claim lost with Redis's data.
 */
const RENEW = `
local out = {}
for i = 2, #KEYS do
  local fence = ARGV[i + 2]
  local extendOnly = string.sub(fence, 1, 1) == 'x'
  if extendOnly then fence = string.sub(fence, 2) end
  local current = redis.call('HMGET', KEYS[i], 'node', 'fence')
  if current[1] == ARGV[1] and current[2] == fence then
    redis.call('PEXPIRE', KEYS[i], ARGV[3])
    out[i - 1] = 1
  elseif not current[2] and not extendOnly then
    redis.call('HSET', KEYS[i], 'node', ARGV[1], 'url', ARGV[2], 'fence', fence)
    redis.call('PEXPIRE', KEYS[i], ARGV[3])
    if tonumber(redis.call('GET', KEYS[1]) or '0') < tonumber(fence) then redis.call('SET', KEYS[1], fence) end
    out[i - 1] = 2
  else
    out[i - 1] = 0
  end
end
return out
`;

/** KEYS: lease. ARGV: fence. Deletes the lease only while it carries this fence. */
const RELEASE = `
if redis.call('HGET', KEYS[1], 'fence') == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

type Reply = [number, string, string, string, number?, number?, number?];

interface ScriptedRedis extends Redis {
  turnsClaim(
    lease: string,
    counter: string,
    heartbeat: string,
    ownHeartbeat: string,
    node: string,
    url: string,
    ttl: number,
    floor: number,
    lookAtPrevious: '0' | '1',
  ): Promise<Reply>;
  turnsRenew(...args: Array<string | number>): Promise<number[]>;
  turnsRelease(lease: string, fence: number): Promise<number>;
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

  constructor(
    redis: Redis,
    private readonly leaseMs: number,
    private readonly prefix = 'turns:',
  ) {
    redis.defineCommand('turnsClaim', { numberOfKeys: 4, lua: CLAIM });
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

  /**
   * Claims the lease; a won fence is above `floor`, the highest fence the
   * session had (recorded by `SessionFences`). `previous`: the node that
   * claimed it before, whose heartbeat the same step looks at.
   */
  async claim(sessionId: string, self: { node: string; url: string }, floor = 0, previous?: string): Promise<ClaimResult> {
    const [won, node, url, fence, reset, alive, selfAlive] = await this.redis.turnsClaim(
      this.leaseKey(sessionId),
      this.counterKey,
      this.nodeKey(previous ?? self.node),
      this.nodeKey(self.node),
      self.node,
      self.url,
      this.leaseMs,
      floor,
      previous === undefined ? '0' : '1',
    );
    return won === 1
      ? { won: true, fence: Number(fence), reset: reset === 1, previousAlive: alive === 1, selfAlive: selfAlive === 1 }
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
    const key = this.nodeKey(node.nodeId);
    if (refreshOnly) await this.redis.call('SET', key, JSON.stringify(node), 'XX', 'KEEPTTL');
    else await this.redis.set(key, JSON.stringify(node), 'PX', this.leaseMs);
  }

  private nodeKey(nodeId: string): string {
    return `${this.prefix}node:${nodeId}`;
  }

  /** Takes the right, for `ms`, to adopt a dead node's webhook outbox: one live node does it, not all. */
  async claimOutbox(deadNodeId: string, self: string, ms: number): Promise<boolean> {
    return (await this.redis.set(`${this.prefix}webhooks:adopt:${deadNodeId}`, self, 'PX', ms, 'NX')) === 'OK';
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
