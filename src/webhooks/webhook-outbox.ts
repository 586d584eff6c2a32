import { randomUUID } from 'node:crypto';
import { mkdir, opendir, readFile, rename, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDirectory, writeAtomically } from '../common/durable-files.js';
import type { WebhookDelivery } from './webhook-delivery.js';

/** `<nextAttemptAt, 15 digits>_<deliveryId>.json`: a directory listing alone says what is due when. */
const NAME = /^(\d{15})_(msg_[0-9a-f-]{36})\.json$/;
const ID = /^msg_[0-9a-f-]{36}$/;
/** What `writeAtomically` leaves when the process dies between its sync and its rename: `<name>.<uuid>.tmp`. */
const TEMP = /^(\d{15}_(msg_[0-9a-f-]{36})\.json)\.[0-9a-f-]{36}\.tmp$/;
/** Another outbox this one is taking over, moved inside it whole: `adopting-<uuid>`. */
const ADOPTING = /^adopting-[0-9a-f-]{36}$/;

/** A pending delivery as the directory lists it. */
export interface OutboxEntry {
  deliveryId: string;
  /** Its next attempt, epoch ms. */
  at: number;
}

/**
 * The durable outbox: one file per pending delivery, written (and synced)
 * before its first attempt and rewritten after each failed one, removed once
 * it is delivered or given up. Its name carries its due time, so finding what
 * is due reads names, not files. What a restart — a `kill -9` included —
 * finds here is sent again.
 */
export class WebhookOutbox {
  constructor(private readonly dir: string) {}

  /**
   * Writes the delivery under its due time; the file it had before (due at
   * `previousAt`) goes once the new one is in place. A first write makes the
   * directory if it must; a rewrite never does: its directory gone means
   * another node adopted this outbox (renamed it away), and with it the
   * delivery — `false` then, and nothing is written.
   */
  async put(delivery: WebhookDelivery, previousAt?: number): Promise<boolean> {
    const file = this.fileOf(delivery.deliveryId, delivery.nextAttemptAt);
    const text = JSON.stringify(delivery);
    const adopted = (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? false : Promise.reject(error));
    if (previousAt === undefined) {
      // ENOENT: adopted during the write; a first write goes to a new outbox (nobody else has this delivery yet).
      await writeAtomically(file, text).catch((error: NodeJS.ErrnoException) =>
        error.code === 'ENOENT' ? writeAtomically(file, text) : Promise.reject(error),
      );
      return true;
    }
    if (!(await writeAtomically(file, text, { createDir: false }).then(() => true, adopted))) return false;
    if (previousAt !== delivery.nextAttemptAt) {
      await this.remove(delivery.deliveryId, previousAt);
      // Synced too, or a power loss could bring the old file back beside the new one (a duplicate).
      return syncDirectory(this.dir).then(() => true, adopted);
    }
    return true;
  }

  async get(entry: OutboxEntry): Promise<WebhookDelivery | undefined> {
    try {
      return JSON.parse(await readFile(this.fileOf(entry.deliveryId, entry.at), 'utf8')) as WebhookDelivery;
    } catch {
      return undefined;
    }
  }

  async remove(deliveryId: string, at: number): Promise<void> {
    await rm(this.fileOf(deliveryId, at), { force: true });
  }

  /** Every pending delivery, streamed from the directory (memory does not grow with their number). */
  async *entries(): AsyncGenerator<OutboxEntry> {
    for await (const name of this.names()) {
      const match = NAME.exec(name);
      if (match) yield { deliveryId: match[2]!, at: Number(match[1]) };
    }
  }

  /**
   * Finishes the writes a crash interrupted: a temp file that holds a whole
   * delivery, synced but not yet renamed (a `kill -9` right after the
   * terminal), is renamed into place unless the delivery has a file already;
   * a torn one is dropped when `dropTorn` (this process's own outbox at start,
   * where nobody else writes). Returns how many were recovered.
   */
  async recover(dropTorn = false): Promise<number> {
    // At its own start, it also finishes the adoptions a crash interrupted.
    if (dropTorn) for await (const name of this.names('dirs')) if (ADOPTING.test(name)) await this.absorb(join(this.dir, name));
    const temps: Array<{ file: string; name: string; deliveryId: string }> = [];
    const pending = new Set<string>();
    for await (const name of this.names()) {
      const temp = TEMP.exec(name);
      if (temp) temps.push({ file: name, name: temp[1]!, deliveryId: temp[2]! });
      else {
        const entry = NAME.exec(name);
        if (entry) pending.add(entry[2]!);
      }
    }
    let recovered = 0;
    for (const temp of temps) {
      const path = join(this.dir, temp.file);
      const delivery = await readFile(path, 'utf8')
        .then((text) => JSON.parse(text) as WebhookDelivery)
        .catch(() => undefined);
      if (delivery?.deliveryId === temp.deliveryId && !pending.has(temp.deliveryId)) {
        pending.add(temp.deliveryId);
        recovered += await rename(path, join(this.dir, temp.name)).then(
          () => 1,
          () => 0,
        );
      } else if (delivery || dropTorn) await rm(path, { force: true });
    }
    if (recovered > 0) await syncDirectory(this.dir);
    return recovered;
  }

  /** How many deliveries are pending (read from the listing: a scrape or a status call, never a poll). */
  async count(): Promise<number> {
    let pending = 0;
    for await (const _entry of this.entries()) pending += 1;
    return pending;
  }

  /**
   * Takes over another outbox (a dead cluster node's): first the whole
   * directory is renamed into this one (`adopting-<uuid>`), so nothing of it
   * is taken while its owner still writes there — a live owner's next write
   * makes a new one, and a file it had scheduled is simply gone — then its
   * deliveries are moved in, a file at a time. 0 when another adopter (or
   * its node) got there first. Returns how many moved.
   */
  async adopt(dir: string): Promise<number> {
    await mkdir(this.dir, { recursive: true });
    const taken = join(this.dir, `adopting-${randomUUID()}`);
    try {
      await rename(dir, taken);
    } catch {
      return 0;
    }
    return this.absorb(taken);
  }

  /** Moves the deliveries of an outbox renamed into this one (and of those it was adopting) here, then removes it. */
  private async absorb(dir: string): Promise<number> {
    const from = new WebhookOutbox(dir);
    // Nobody writes there any more: a torn write is dropped (its writer, if alive, writes it again).
    await from.recover(true);
    let moved = 0;
    for await (const entry of from.entries()) {
      await rename(from.fileOf(entry.deliveryId, entry.at), this.fileOf(entry.deliveryId, entry.at)).then(
        () => (moved += 1),
        () => undefined,
      );
    }
    // Both entries of each rename, so a power loss neither loses a delivery nor leaves it in both outboxes.
    if (moved > 0) await Promise.all([syncDirectory(this.dir), syncDirectory(dir)]);
    await rmdir(dir).catch(() => undefined);
    return moved;
  }

  private async *names(kind: 'files' | 'dirs' = 'files'): AsyncGenerator<string> {
    let dir;
    try {
      dir = await opendir(this.dir);
    } catch {
      return;
    }
    for await (const entry of dir) if (kind === 'files' ? entry.isFile() : entry.isDirectory()) yield entry.name;
  }

  private fileOf(deliveryId: string, at: number): string {
    if (!ID.test(deliveryId) || !Number.isSafeInteger(at) || at < 0) throw new Error('invalid outbox entry');
    return join(this.dir, `${String(at).padStart(15, '0')}_${deliveryId}.json`);
  }
}
