import { Logger } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { apiError, clusterUnavailable } from '../../errors/api-errors.js';
import type { IdempotentAnswer } from '../../idempotency/idempotency-store.js';
import { SharedIdempotencyKeys } from '../../idempotency/shared-idempotency-keys.js';
import type { ClusterSettings } from '../node/cluster.settings.js';
import { CreateKeyMarks } from './create-key-marks.js';
import type { CreateKeyRecord, CreateKeyRecords } from './create-key-records.js';
import { CreateKeyScripts, type SharedKey } from './create-key-scripts.js';

/** A key begun here: its in-flight record, and the timer that keeps it while the request runs. */
interface Begun {
  record: string;
  hash: string;
  holding: NodeJS.Timeout;
}

/**
 * Cluster mode's {@link SharedIdempotencyKeys}: a key in Redis and, with a data dir, in {@link CreateKeyRecords} and
 * {@link CreateKeyMarks} (docs/cluster.md#inv-key-1 to #inv-key-5; why: docs/decisions.md#create-keys-on-the-data-dir).
 */
export class RedisIdempotencyKeys extends SharedIdempotencyKeys {
  private readonly logger = new Logger('RedisIdempotencyKeys');
  private readonly scripts: CreateKeyScripts;
  private readonly begun = new Map<string, Begun>();
  private readonly marks?: CreateKeyMarks;

  constructor(
    redis: Redis,
    private readonly settings: ClusterSettings,
    private readonly records?: CreateKeyRecords,
    private readonly now: () => number = Date.now,
  ) {
    super();
    this.scripts = new CreateKeyScripts(redis);
    // Taken over two leases after its node stopped touching it (docs/cluster.md#inv-key-2).
    this.marks = records && new CreateKeyMarks(records.dir, 2 * settings.leaseMs, now);
  }

  async begin(key: string, fingerprint: string): Promise<IdempotentAnswer | undefined> {
    const hash = hashOf(key);
    const stored = this.keyOf(hash);
    const mark = JSON.stringify({ fingerprint, mark: randomUUID() } satisfies SharedKey);
    let found: SharedKey | undefined;
    try {
      ({ found } = await this.scripts.begin(stored, mark, this.settings.leaseMs));
    } catch {
      throw clusterUnavailable({});
    }
    const record = found ?? (await this.onDataDir(hash, stored, mark, fingerprint));
    if (record === undefined) {
      this.hold(hash, stored, mark);
      return undefined;
    }
    if (record.fingerprint !== fingerprint) throw apiError('idempotency_key_reused');
    if (!record.answer) throw apiError('idempotency_key_in_flight');
    return record.answer;
  }

  /** Records the answer (docs/cluster.md#inv-key-3); the answer to give: this one, or the first recorded (#inv-key-4). */
  async complete(key: string, fingerprint: string, answer: IdempotentAnswer, ttlMs: number): Promise<IdempotentAnswer> {
    const hash = hashOf(key);
    const stored = this.keyOf(hash);
    const mark = this.release(stored);
    const kept = await this.recordDurably(hash, { fingerprint, answer, expiresAt: this.now() + ttlMs }, stored, mark);
    if (mark !== undefined) await this.marks?.release(hash, mark).catch(() => undefined); // the record answers from now on
    if (kept.fingerprint !== fingerprint) throw apiError('idempotency_key_reused');
    if (mark === undefined) return kept.answer;
    const completed = await this.scripts.complete(stored, mark, { fingerprint, answer: kept.answer }, ttlMs).catch(() => ({ mine: false }));
    // Not this request's mark any more (Redis lost it): the data dir's record answers; without one, done is done and only the replay is lost.
    if (!completed.mine && !this.records) this.logger.warn('create key not shared: its in-flight mark was lost and there is no data dir');
    return kept.answer;
  }

  async abandon(key: string, _fingerprint: string): Promise<void> {
    const hash = hashOf(key);
    const stored = this.keyOf(hash);
    const record = this.release(stored);
    if (record === undefined) return;
    await this.marks?.release(hash, record).catch(() => undefined); // one left is taken over two leases later
    await this.scripts.abandon(stored, record);
  }

  /**
   * A key Redis does not know (docs/cluster.md#inv-key-5): its record on the data dir; else another live request's mark
   * there; else `undefined`, the key marked there for this request. Frees the Redis mark unless it is this request's now.
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
      if (found && !found.answer) await this.scripts.abandon(stored, mark).catch(() => undefined);
      return found;
    } catch (error) {
      await this.scripts.abandon(stored, mark).catch(() => undefined);
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
    await this.scripts.complete(stored, mark, shared, ttlMs).catch(() => undefined);
    return shared;
  }

  /** The record that holds once this one is written (the first); without a data dir, this one. */
  private async recordDurably(hash: string, record: CreateKeyRecord, stored: string, mark: string | undefined): Promise<CreateKeyRecord> {
    if (!this.records) return record;
    try {
      return await this.records.write(hash, record);
    } catch (error) {
      if (mark !== undefined) await this.scripts.abandon(stored, mark).catch(() => undefined);
      this.logger.warn(`create key not recorded: ${(error as NodeJS.ErrnoException).code ?? (error as Error).name}`);
      throw clusterUnavailable({});
    }
  }

  /** Extends the marks every third of a lease (docs/cluster.md#inv-key-2); a hold refused is tried at the next. */
  private hold(hash: string, stored: string, record: string): void {
    // A request of this node begun earlier whose mark Redis lost: this one's mark is the key's now.
    this.release(stored);
    const holding = setInterval(
      () => {
        void this.scripts.hold(stored, record, this.settings.leaseMs).catch(() => undefined);
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

/** The key's name in Redis and on the data dir (docs/cluster.md#inv-key-1). */
function hashOf(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
