import type { Redis } from 'ioredis';
import type { IdempotentAnswer } from '../../idempotency/idempotency-store.js';

/**
 * A key's record in Redis: the fingerprint of its first request, and its answer once there is one; while in flight,
 * the mark of the request that runs (docs/cluster.md#inv-key-2).
 */
export interface SharedKey {
  fingerprint: string;
  answer?: IdempotentAnswer;
  mark?: string;
}

/** What {@link CreateKeyScripts.begin} found: the key's record, or none (`found` absent) after marking it in flight. */
export interface BeginReply {
  found?: SharedKey;
}

/** What a script that acts only on this request's mark did: `mine` false when the key held another record. */
export interface MarkReply {
  mine: boolean;
}

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

/** BEGIN's reply (a bulk string, or nil for Lua's `false`). */
export function decodeBegin(reply: string | null): BeginReply {
  return reply === null ? {} : { found: JSON.parse(reply) as SharedKey };
}

/** ABANDON's, HOLD's and COMPLETE's reply: 1 when the key was this request's mark and the script acted on it. */
export function decodeMarkReply(reply: number): MarkReply {
  return { mine: reply === 1 };
}

interface ScriptedRedis extends Redis {
  turnsKeyBegin(key: string, record: string, ttlMs: number): Promise<string | null>;
  turnsKeyAbandon(key: string, record: string): Promise<number>;
  turnsKeyHold(key: string, record: string, ttlMs: number): Promise<number>;
  turnsKeyComplete(key: string, record: string, answered: string, ttlMs: number): Promise<number>;
}

/** The create keys' Lua scripts on one Redis connection, each reply decoded. `mark` is the in-flight record's text. */
export class CreateKeyScripts {
  private readonly redis: ScriptedRedis;

  constructor(redis: Redis) {
    redis.defineCommand('turnsKeyBegin', { numberOfKeys: 1, lua: BEGIN });
    redis.defineCommand('turnsKeyAbandon', { numberOfKeys: 1, lua: ABANDON });
    redis.defineCommand('turnsKeyHold', { numberOfKeys: 1, lua: HOLD });
    redis.defineCommand('turnsKeyComplete', { numberOfKeys: 1, lua: COMPLETE });
    this.redis = redis as ScriptedRedis;
  }

  /** The key's record; or, when there is none, the key marked in flight with `mark` for `ttlMs`. */
  async begin(key: string, mark: string, ttlMs: number): Promise<BeginReply> {
    return decodeBegin(await this.redis.turnsKeyBegin(key, mark, ttlMs));
  }

  /** Deletes the key while it is `mark`. */
  async abandon(key: string, mark: string): Promise<MarkReply> {
    return decodeMarkReply(await this.redis.turnsKeyAbandon(key, mark));
  }

  /** Extends the key to `ttlMs` while it is `mark`. */
  async hold(key: string, mark: string, ttlMs: number): Promise<MarkReply> {
    return decodeMarkReply(await this.redis.turnsKeyHold(key, mark, ttlMs));
  }

  /** Replaces the key with `record` for `ttlMs` while it is `mark`. */
  async complete(key: string, mark: string, record: SharedKey, ttlMs: number): Promise<MarkReply> {
    return decodeMarkReply(await this.redis.turnsKeyComplete(key, mark, JSON.stringify(record), ttlMs));
  }
}
