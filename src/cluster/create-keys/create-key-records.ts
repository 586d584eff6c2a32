import { randomUUID } from 'node:crypto';
import { link, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDirectorySynced, syncDirectory, writeSyncedFile } from '../../common/durable-files.js';
import type { IdempotentAnswer } from '../../idempotency/idempotency-store.js';

/** A record's name: the sha256 of the key's scope, in hex (docs/cluster.md#inv-key-1). */
const RECORD_NAME = /^[0-9a-f]{64}$/;
/** A temp file left by a write a crash cut short: `<name>.<uuid>.tmp`. */
const TEMP_NAME = /^[0-9a-f]{64}(\.mark)?\.[0-9a-f-]{36}\.tmp$/;
/** An in-flight mark ({@link CreateKeyMarks}). */
const MARK_NAME = /^[0-9a-f]{64}\.mark$/;
/** Names a sweep looks at, at most: bounded work however many keys there are. */
const SWEEP_BATCH = 1_000;

/** A create key's completed record: the fingerprint of its first request, its answer, and when it expires (epoch ms). */
export interface CreateKeyRecord {
  fingerprint: string;
  answer: IdempotentAnswer;
  expiresAt: number;
}

/** A record's text as read back; throws on one that is not a record (never taken for "none"). */
export function parseCreateKeyRecord(text: string): CreateKeyRecord {
  const record = JSON.parse(text) as Partial<CreateKeyRecord> | null;
  const answer = record?.answer;
  if (
    typeof record?.fingerprint !== 'string' ||
    typeof record.expiresAt !== 'number' ||
    typeof answer?.status !== 'number' ||
    !('body' in answer)
  ) {
    throw new Error('unreadable create key record');
  }
  return { fingerprint: record.fingerprint, answer, expiresAt: record.expiresAt };
}

/**
 * Completed `POST /session` keys of a cluster, one file per key on the shared data dir,
 * `<dataDir>/cluster/idempotency/<sha256 of the scope>` (docs/cluster.md#inv-key-3, #inv-key-4, #inv-key-6).
 */
export class CreateKeyRecords {
  /** Where the records (and the in-flight marks) are. */
  readonly dir: string;
  private made = false;
  private lastSweep: number;
  private sweepFrom = 0;

  constructor(
    dataDir: string,
    private readonly now: () => number = Date.now,
    private readonly sweepEveryMs = 3_600_000,
  ) {
    this.dir = join(dataDir, 'cluster', 'idempotency');
    this.lastSweep = now();
  }

  /** The live record under `name`; `undefined` when there is none or it expired. Throws when it cannot be read. */
  async read(name: string): Promise<CreateKeyRecord | undefined> {
    let text: string;
    try {
      text = await readFile(this.pathOf(name), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const record = parseCreateKeyRecord(text);
    return record.expiresAt > this.now() ? record : undefined;
  }

  /**
   * Records `record` under `name`, synced, unless a live record is there
   * already: the record that holds once this resolves (this one, or the
   * first). Throws when it cannot be written.
   */
  async write(name: string, record: CreateKeyRecord): Promise<CreateKeyRecord> {
    const path = this.pathOf(name);
    await this.ready();
    const temp = `${path}.${randomUUID()}.tmp`;
    try {
      await writeSyncedFile(temp, JSON.stringify(record));
      const kept = await this.place(temp, path, name);
      await syncDirectory(this.dir);
      this.sweepNow();
      return kept ?? record;
    } finally {
      await rm(temp, { force: true });
    }
  }

  /** Links the temp file into place; the live record already there instead, if any (an expired one is removed first). */
  private async place(temp: string, path: string, name: string): Promise<CreateKeyRecord | undefined> {
    for (let attempt = 0; ; attempt++) {
      try {
        await link(temp, path);
        return undefined;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const first = await this.read(name);
        if (first) return first;
        if (attempt > 0) throw error;
      }
      await this.removeIfExpired(path, 0);
    }
  }

  /** Removes the record when it expired `graceMs` ago, never a live one (docs/cluster.md#inv-key-6); true when it did. */
  private async removeIfExpired(path: string, graceMs: number): Promise<boolean> {
    const moved = `${path}.${randomUUID()}.tmp`;
    try {
      await rename(path, moved);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
    try {
      const record = parseCreateKeyRecord(await readFile(moved, 'utf8'));
      if (record.expiresAt + graceMs <= this.now()) return true;
      await link(moved, path).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      return false;
    } finally {
      await rm(moved, { force: true });
    }
  }

  /** Removes records expired (and temp files left) longer than a sweep ago; at most once per `sweepEveryMs`, in the background. */
  private sweepNow(): void {
    const now = this.now();
    if (now - this.lastSweep < this.sweepEveryMs) return;
    this.lastSweep = now;
    void this.sweep(now).catch(() => undefined);
  }

  /** One bounded pass; what it removed. */
  async sweep(now = this.now()): Promise<number> {
    const all = await readdir(this.dir).catch(() => [] as string[]);
    // A batch a pass, the next pass going on from there: every name is looked at in turn.
    if (this.sweepFrom >= all.length) this.sweepFrom = 0;
    const names = all.slice(this.sweepFrom, this.sweepFrom + SWEEP_BATCH);
    this.sweepFrom += SWEEP_BATCH;
    let removed = 0;
    for (const name of names) {
      const path = join(this.dir, name);
      if (TEMP_NAME.test(name) || MARK_NAME.test(name)) {
        const { mtimeMs } = await stat(path).catch(() => ({ mtimeMs: now }));
        if (
          now - mtimeMs > this.sweepEveryMs &&
          (await rm(path, { force: true }).then(
            () => true,
            () => false,
          ))
        )
          removed++;
        continue;
      }
      if (!RECORD_NAME.test(name)) continue;
      // Expired a sweep ago: a writer that read it as expired has replaced it long since.
      const record = await readFile(path, 'utf8').then(parseCreateKeyRecord, () => undefined);
      if (record && record.expiresAt + this.sweepEveryMs < now && (await this.removeIfExpired(path, this.sweepEveryMs).catch(() => false)))
        removed++;
    }
    return removed;
  }

  /** The directory, made and its parents synced once per process (a record is found after a power loss only with its entry). */
  async ready(): Promise<void> {
    if (this.made) return;
    await makeDirectorySynced(this.dir, 0o700);
    this.made = true;
  }

  private pathOf(name: string): string {
    if (!RECORD_NAME.test(name)) throw new Error('invalid create key record name');
    return join(this.dir, name);
  }
}
