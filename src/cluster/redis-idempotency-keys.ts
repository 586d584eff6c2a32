import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { apiError, clusterUnavailable } from '../errors/api-errors.js';
import type { IdempotentAnswer } from '../idempotency/idempotency-store.js';
import { SharedIdempotencyKeys } from '../idempotency/shared-idempotency-keys.js';
import { CLUSTER_REDIS, CLUSTER_SETTINGS, type ClusterSettings } from './cluster-options.js';

/** KEYS: the key's record. ARGV: the in-flight record, its ttl. The record found, or none after marking it in flight. */
const BEGIN = `
local found = redis.call('GET', KEYS[1])
if found then return found end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`;

/** KEYS: the key's record. ARGV: the in-flight record. Deletes it only while it is that in-flight record. */
const ABANDON = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** KEYS: the key's record. ARGV: the in-flight record, its ttl. Extends it only while it is that in-flight record. */
const HOLD = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

/** KEYS: the key's record. ARGV: the in-flight record, the answered one, its ttl. Replaces only that in-flight record. */
const COMPLETE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`;

/**
 * A key's record in Redis: the fingerprint of its first request, and its
 * answer once there is one; while in flight, the mark of the request that
 * runs (unique, so only that request completes or frees it).
 */
interface SharedKey {
  fingerprint: string;
  answer?: IdempotentAnswer;
  mark?: string;
}

interface ScriptedRedis extends Redis {
  turnsKeyBegin(key: string, record: string, ttlMs: number): Promise<string | null>;
  turnsKeyAbandon(key: string, record: string): Promise<number>;
  turnsKeyHold(key: string, record: string, ttlMs: number): Promise<number>;
  turnsKeyComplete(key: string, record: string, answered: string, ttlMs: number): Promise<number>;
}

/** A key begun here: its in-flight record, and the timer that keeps it while the request runs. */
interface Begun {
  record: string;
  holding: NodeJS.Timeout;
}

/**
 * Cluster mode's {@link SharedIdempotencyKeys}: a key's record is one Redis
 * value under a hash of its scope, marked in flight for a lease and extended
 * every third of one while the request runs (a node that dies while it
 * creates frees it a lease later; a slow create keeps it), then replaced by
 * its answer — only while it is still this request's mark — and kept for the
 * idempotency TTL. Redis losing its data loses the replays it held, nothing else.
 */
@Injectable()
export class RedisIdempotencyKeys extends SharedIdempotencyKeys {
  private readonly redis: ScriptedRedis;
  private readonly begun = new Map<string, Begun>();

  constructor(
    @Inject(CLUSTER_REDIS) redis: Redis,
    @Inject(CLUSTER_SETTINGS) private readonly settings: ClusterSettings,
  ) {
    super();
    redis.defineCommand('turnsKeyBegin', { numberOfKeys: 1, lua: BEGIN });
    redis.defineCommand('turnsKeyAbandon', { numberOfKeys: 1, lua: ABANDON });
    redis.defineCommand('turnsKeyHold', { numberOfKeys: 1, lua: HOLD });
    redis.defineCommand('turnsKeyComplete', { numberOfKeys: 1, lua: COMPLETE });
    this.redis = redis as ScriptedRedis;
  }

  async begin(key: string, fingerprint: string): Promise<IdempotentAnswer | undefined> {
    const stored = this.keyOf(key);
    const mark: SharedKey = { fingerprint, mark: randomUUID() };
    let found: string | null;
    try {
      found = await this.redis.turnsKeyBegin(stored, JSON.stringify(mark), this.settings.leaseMs);
    } catch {
      throw clusterUnavailable({});
    }
    if (found === null) {
      this.hold(stored, JSON.stringify(mark));
      return undefined;
    }
    const record = JSON.parse(found) as SharedKey;
    if (record.fingerprint !== fingerprint) throw apiError('idempotency_key_reused');
    if (!record.answer) throw apiError('idempotency_key_in_flight');
    return record.answer;
  }

  /** Rejects, recording nothing, when the key is no longer this request's mark (Redis lost it, and another node may hold it). */
  async complete(key: string, fingerprint: string, answer: IdempotentAnswer, ttlMs: number): Promise<void> {
    const stored = this.keyOf(key);
    const record = this.release(stored);
    if (record === undefined) return;
    if ((await this.redis.turnsKeyComplete(stored, record, JSON.stringify({ fingerprint, answer }), ttlMs)) !== 1) {
      throw Object.assign(new Error('the in-flight mark was lost'), { name: 'IdempotencyMarkLost' });
    }
  }

  async abandon(key: string, _fingerprint: string): Promise<void> {
    const stored = this.keyOf(key);
    const record = this.release(stored);
    if (record !== undefined) await this.redis.turnsKeyAbandon(stored, record);
  }

  /** Extends the mark every third of a lease while the request runs; a hold Redis refuses is tried at the next. */
  private hold(stored: string, record: string): void {
    // A request of this node begun earlier whose mark Redis lost: this one's mark is the key's now.
    this.release(stored);
    const holding = setInterval(
      () => void this.redis.turnsKeyHold(stored, record, this.settings.leaseMs).catch(() => undefined),
      Math.max(1, Math.floor(this.settings.leaseMs / 3)),
    );
    holding.unref();
    this.begun.set(stored, { record, holding });
  }

  /** Stops holding a key begun here; its in-flight record. */
  private release(stored: string): string | undefined {
    const begun = this.begun.get(stored);
    if (!begun) return undefined;
    clearInterval(begun.holding);
    this.begun.delete(stored);
    return begun.record;
  }

  /** The scope holds a workspace path and a client id as sent: hashed, the Redis key is short and plain. */
  private keyOf(key: string): string {
    return `${this.settings.keyPrefix}idempotency:${createHash('sha256').update(key).digest('hex')}`;
  }
}
