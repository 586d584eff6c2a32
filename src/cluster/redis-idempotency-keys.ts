import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
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

/** A key's record in Redis: the fingerprint of its first request, and its answer once there is one. */
interface SharedKey {
  fingerprint: string;
  answer?: IdempotentAnswer;
}

interface ScriptedRedis extends Redis {
  turnsKeyBegin(key: string, record: string, ttlMs: number): Promise<string | null>;
  turnsKeyAbandon(key: string, record: string): Promise<number>;
}

/**
 * Cluster mode's {@link SharedIdempotencyKeys}: a key's record is one Redis
 * value under a hash of its scope, marked in flight for a lease (a node that
 * dies while it creates frees it then) and kept with its answer for the
 * idempotency TTL. Redis losing its data loses the replays it held, nothing else.
 */
@Injectable()
export class RedisIdempotencyKeys extends SharedIdempotencyKeys {
  private readonly redis: ScriptedRedis;

  constructor(
    @Inject(CLUSTER_REDIS) redis: Redis,
    @Inject(CLUSTER_SETTINGS) private readonly settings: ClusterSettings,
  ) {
    super();
    redis.defineCommand('turnsKeyBegin', { numberOfKeys: 1, lua: BEGIN });
    redis.defineCommand('turnsKeyAbandon', { numberOfKeys: 1, lua: ABANDON });
    this.redis = redis as ScriptedRedis;
  }

  async begin(key: string, fingerprint: string): Promise<IdempotentAnswer | undefined> {
    let found: string | null;
    try {
      found = await this.redis.turnsKeyBegin(this.keyOf(key), JSON.stringify({ fingerprint }), this.settings.leaseMs);
    } catch {
      throw clusterUnavailable({});
    }
    if (found === null) return undefined;
    const record = JSON.parse(found) as SharedKey;
    if (record.fingerprint !== fingerprint) throw apiError('idempotency_key_reused');
    if (!record.answer) throw apiError('idempotency_key_in_flight');
    return record.answer;
  }

  async complete(key: string, fingerprint: string, answer: IdempotentAnswer, ttlMs: number): Promise<void> {
    await this.redis.set(this.keyOf(key), JSON.stringify({ fingerprint, answer }), 'PX', ttlMs);
  }

  async abandon(key: string, fingerprint: string): Promise<void> {
    await this.redis.turnsKeyAbandon(this.keyOf(key), JSON.stringify({ fingerprint }));
  }

  /** The scope holds a workspace path and a client id as sent: hashed, the Redis key is short and plain. */
  private keyOf(key: string): string {
    return `${this.settings.keyPrefix}idempotency:${createHash('sha256').update(key).digest('hex')}`;
  }
}
