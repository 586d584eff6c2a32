import { Logger } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { apiError, clusterUnavailable } from '../../errors/api-errors.js';
import type { IdempotentAnswer } from '../../idempotency/idempotency-store.js';
import { SharedIdempotencyKeys } from '../../idempotency/shared-idempotency-keys.js';
import type { ClusterSettings } from '../node/cluster.settings.js';
import { CreateKeyMarks } from './create-key-marks.js';
import type { CreateKeyRecord, CreateKeyRecords } from './create-key-records.js';

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
  hash: string;
  holding: NodeJS.Timeout;
}

/**
 * Cluster mode's {@link SharedIdempotencyKeys}: a key's record is one Redis
 * value under a hash of its scope, marked in flight for a lease and extended
 * every third of one while the request runs (a node that dies while it
 * creates frees it a lease later; a slow create keeps it), then replaced by
 * its answer — only while it is still this request's mark — and kept for the
 * idempotency TTL. With a data dir, Redis losing its data loses nothing: a
 * key Redis does not know is looked up in {@link CreateKeyRecords} (where the
 * answer is recorded, synced, before it is given; the first record wins) and
 * marked in flight in {@link CreateKeyMarks} too, touched as Redis's mark is
 * extended and taken over two leases after its node stopped touching it.
 */
export class RedisIdempotencyKeys extends SharedIdempotencyKeys {
  private readonly logger = new Logger('RedisIdempotencyKeys');
  private readonly redis: ScriptedRedis;
  private readonly begun = new Map<string, Begun>();
  private readonly marks?: CreateKeyMarks;

  constructor(
    redis: Redis,
    private readonly settings: ClusterSettings,
    private readonly records?: CreateKeyRecords,
    private readonly now: () => number = Date.now,
  ) {
    super();
    redis.defineCommand('turnsKeyBegin', { numberOfKeys: 1, lua: BEGIN });
    redis.defineCommand('turnsKeyAbandon', { numberOfKeys: 1, lua: ABANDON });
    redis.defineCommand('turnsKeyHold', { numberOfKeys: 1, lua: HOLD });
    redis.defineCommand('turnsKeyComplete', { numberOfKeys: 1, lua: COMPLETE });
    this.redis = redis as ScriptedRedis;
    this.marks = records && new CreateKeyMarks(records.dir, 2 * settings.leaseMs, now);
  }

  async begin(key: string, fingerprint: string): Promise<IdempotentAnswer | undefined> {
    const hash = hashOf(key);
    const stored = this.keyOf(hash);
    const mark = JSON.stringify({ fingerprint, mark: randomUUID() } satisfies SharedKey);
    let found: string | null;
    try {
      found = await this.redis.turnsKeyBegin(stored, mark, this.settings.leaseMs);
    } catch {
      throw clusterUnavailable({});
    }
    const record = found === null ? await this.onDataDir(hash, stored, mark, fingerprint) : (JSON.parse(found) as SharedKey);
    if (record === undefined) {
      this.hold(hash, stored, mark);
      return undefined;
    }
    if (record.fingerprint !== fingerprint) throw apiError('idempotency_key_reused');
    if (!record.answer) throw apiError('idempotency_key_in_flight');
    return record.answer;
  }

  /**
   * Records the answer on the data dir, synced, then in Redis; the answer to
   * give: this one, or the first one recorded when another node's create of
   * the same key was recorded first (its mark was taken over). A
   * record the data dir refuses is `503 cluster_unavailable`, the key freed.
   */
  async complete(key: string, fingerprint: string, answer: IdempotentAnswer, ttlMs: number): Promise<IdempotentAnswer> {
    const hash = hashOf(key);
    const stored = this.keyOf(hash);
    const mark = this.release(stored);
    const kept = await this.recordDurably(hash, { fingerprint, answer, expiresAt: this.now() + ttlMs }, stored, mark);
    if (mark !== undefined) await this.marks?.release(hash, mark).catch(() => undefined); // the record answers from now on
    if (kept.fingerprint !== fingerprint) throw apiError('idempotency_key_reused');
    if (mark === undefined) return kept.answer;
    const completed = await this.redis
      .turnsKeyComplete(stored, mark, JSON.stringify({ fingerprint, answer: kept.answer }), ttlMs)
      .catch(() => 0);
    // Not this request's mark any more (Redis lost it): the data dir's record answers; without one, done is done and only the replay is lost.
    if (completed !== 1 && !this.records) this.logger.warn('create key not shared: its in-flight mark was lost and there is no data dir');
    return kept.answer;
  }

  async abandon(key: string, _fingerprint: string): Promise<void> {
    const hash = hashOf(key);
    const stored = this.keyOf(hash);
    const record = this.release(stored);
    if (record === undefined) return;
    await this.marks?.release(hash, record).catch(() => undefined); // one left is taken over two leases later
    await this.redis.turnsKeyAbandon(stored, record);
  }

  /**
   * A key Redis does not know (new, or Redis lost it): its record on the data
   * dir, put back in Redis in place of `mark`; else another live request's
   * mark there; else `undefined`, the key marked there for this request.
   * Frees the Redis mark unless it is this request's now; `503` when the data
   * dir cannot be asked.
   */
  private async onDataDir(hash: string, stored: string, mark: string, fingerprint: string): Promise<SharedKey | undefined> {
    const { records, marks } = this;
    if (!records || !marks) return undefined;
    let found: SharedKey | undefined;
    try {
      found = await this.recordOf(hash, stored, mark);
      if (found) return found;
      await records.ready();
      const claim = await marks.claim(hash, mark);
      if (!claim.claimed) found = claim.held ? (JSON.parse(claim.held) as SharedKey) : { fingerprint };
      // A create recorded between the look-up and the claim: its record answers.
      else if ((found = await this.recordOf(hash, stored, mark))) await marks.release(hash, mark);
      if (found && !found.answer) await this.redis.turnsKeyAbandon(stored, mark).catch(() => undefined);
      return found;
    } catch (error) {
      await this.redis.turnsKeyAbandon(stored, mark).catch(() => undefined);
      await marks.release(hash, mark).catch(() => undefined);
      this.logger.warn(`create key not looked up on the data dir: ${(error as NodeJS.ErrnoException).code ?? (error as Error).name}`);
      throw clusterUnavailable({});
    }
  }

  /** The data dir's record of the key, put back in Redis in place of `mark`. */
  private async recordOf(hash: string, stored: string, mark: string): Promise<SharedKey | undefined> {
    const record = await this.records!.read(hash);
    if (!record) return undefined;
    const shared: SharedKey = { fingerprint: record.fingerprint, answer: record.answer };
    const ttlMs = Math.max(1, record.expiresAt - this.now());
    await this.redis.turnsKeyComplete(stored, mark, JSON.stringify(shared), ttlMs).catch(() => undefined);
    return shared;
  }

  /** The record that holds once this one is written (the first); without a data dir, this one. */
  private async recordDurably(hash: string, record: CreateKeyRecord, stored: string, mark: string | undefined): Promise<CreateKeyRecord> {
    if (!this.records) return record;
    try {
      return await this.records.write(hash, record);
    } catch (error) {
      if (mark !== undefined) await this.redis.turnsKeyAbandon(stored, mark).catch(() => undefined);
      this.logger.warn(`create key not recorded: ${(error as NodeJS.ErrnoException).code ?? (error as Error).name}`);
      throw clusterUnavailable({});
    }
  }

  /** Extends the marks every third of a lease while the request runs; a hold refused is tried at the next. */
  private hold(hash: string, stored: string, record: string): void {
    // A request of this node begun earlier whose mark Redis lost: this one's mark is the key's now.
    this.release(stored);
    const holding = setInterval(
      () => {
        void this.redis.turnsKeyHold(stored, record, this.settings.leaseMs).catch(() => undefined);
        void this.marks?.touch(hash, record).catch(() => undefined);
      },
      Math.max(1, Math.floor(this.settings.leaseMs / 3)),
    );
    holding.unref();
    this.begun.set(stored, { record, hash, holding });
  }

  /** Stops holding a key begun here; its in-flight record. */
  private release(stored: string): string | undefined {
    const begun = this.begun.get(stored);
    if (!begun) return undefined;
    clearInterval(begun.holding);
    this.begun.delete(stored);
    return begun.record;
  }

  private keyOf(hash: string): string {
    return `${this.settings.keyPrefix}idempotency:${hash}`;
  }
}

/** The scope holds a workspace path and a client id as sent: hashed, the Redis key and the file name are short and plain. */
function hashOf(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
