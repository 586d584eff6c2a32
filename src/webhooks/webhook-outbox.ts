import { mkdir, opendir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDirectory } from '../common/sync-directory.js';
import type { WebhookDelivery } from './webhook-delivery.js';
import { writeAtomically } from './webhook-subscriptions.service.js';

/** `<nextAttemptAt, 15 digits>_<deliveryId>.json`: a directory listing alone says what is due when. */
const NAME = /^(\d{15})_(msg_[0-9a-f-]{36})\.json$/;
const ID = /^msg_[0-9a-f-]{36}$/;
/** What `writeAtomically` leaves when the process dies between its sync and its rename: `<name>.<uuid>.tmp`. */
const TEMP = /^(\d{15}_(msg_[0-9a-f-]{36})\.json)\.[0-9a-f-]{36}\.tmp$/;

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

  /** Writes the delivery under its due time; the file it had before (due at `previousAt`) goes once the new one is in place. */
  async put(delivery: WebhookDelivery, previousAt?: number): Promise<void> {
    await writeAtomically(this.fileOf(delivery.deliveryId, delivery.nextAttemptAt), JSON.stringify(delivery));
    if (previousAt !== undefined && previousAt !== delivery.nextAttemptAt) {
      await this.remove(delivery.deliveryId, previousAt);
      // Synced too, or a power loss could bring the old file back beside the new one (a duplicate).
      await syncDirectory(this.dir);
    }
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
   * Moves every pending delivery of another outbox (a dead cluster node's)
   * into this one, a file at a time (a rename: each is in one outbox or the
   * other, never both, never neither). Returns how many moved.
   */
  async adopt(dir: string): Promise<number> {
    await mkdir(this.dir, { recursive: true });
    let moved = 0;
    const from = new WebhookOutbox(dir);
    await from.recover();
    for await (const entry of from.entries()) {
      const name = this.fileOf(entry.deliveryId, entry.at);
      await rename(from.fileOf(entry.deliveryId, entry.at), name).then(
        () => (moved += 1),
        () => undefined, // taken meanwhile (its node came back, or another adopter)
      );
    }
    // Both entries of each rename, so a power loss neither loses a delivery nor leaves it in both outboxes.
    if (moved > 0) await Promise.all([syncDirectory(this.dir), syncDirectory(dir)]);
    return moved;
  }

  private async *names(): AsyncGenerator<string> {
    let dir;
    try {
      dir = await opendir(this.dir);
    } catch {
      return;
    }
    for await (const file of dir) if (file.isFile()) yield file.name;
  }

  private fileOf(deliveryId: string, at: number): string {
    if (!ID.test(deliveryId) || !Number.isSafeInteger(at) || at < 0) throw new Error('invalid outbox entry');
    return join(this.dir, `${String(at).padStart(15, '0')}_${deliveryId}.json`);
  }
}
