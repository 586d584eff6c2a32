import type { OutboxEntry } from './webhook-outbox.js';

/** A scheduled delivery: its outbox file's time (`at`), and when it is due (later, when its rewrite failed). */
interface Scheduled {
  at: number;
  dueAt: number;
}

/**
 * The deliveries held in memory for their next attempt, at most `max` of
 * them: deliveryId → its file and when it is due. The rest wait in the outbox on disk.
 */
export class DeliverySchedule {
  private readonly due = new Map<string, Scheduled>();

  constructor(private readonly max: number) {}

  get size(): number {
    return this.due.size;
  }

  has(deliveryId: string): boolean {
    return this.due.has(deliveryId);
  }

  /**
   * Schedules the delivery of the outbox file due at `at`, for `dueAt` (the
   * file's own time unless its rewrite failed); `false` when the schedule is
   * full (it waits on disk).
   */
  add(deliveryId: string, at: number, dueAt = at): boolean {
    if (this.due.size >= this.max) return false;
    this.due.set(deliveryId, { at, dueAt });
    return true;
  }

  /** When the earliest delivery is due; `Infinity` when none is scheduled. */
  earliest(): number {
    let earliest = Infinity;
    for (const { dueAt } of this.due.values()) earliest = Math.min(earliest, dueAt);
    return earliest;
  }

  /** Takes out up to `limit` deliveries due by `now`, in the order they were scheduled. */
  takeDue(now: number, limit: number): OutboxEntry[] {
    const taken: OutboxEntry[] = [];
    for (const [deliveryId, { at, dueAt }] of this.due) {
      if (taken.length >= limit) break;
      if (dueAt > now) continue;
      this.due.delete(deliveryId);
      taken.push({ deliveryId, at });
    }
    return taken;
  }

  /**
   * Brings in a listing's earliest entries (sorted by `at`), each in place of
   * the latest scheduled one when full and due earlier than it. Returns
   * whether any delivery is left waiting on disk.
   */
  admit(earliest: readonly OutboxEntry[]): boolean {
    let left = false;
    for (const entry of earliest) {
      if (this.due.size >= this.max) {
        left = true;
        const [latestId, latestAt] = this.latest();
        if (latestAt <= entry.at) break;
        this.due.delete(latestId);
      }
      this.due.set(entry.deliveryId, { at: entry.at, dueAt: entry.at });
    }
    return left;
  }

  private latest(): [string, number] {
    let found: [string, number] = ['', -Infinity];
    for (const [deliveryId, { dueAt }] of this.due) if (dueAt > found[1]) found = [deliveryId, dueAt];
    return found;
  }
}

/**
 * The `max` earliest entries of an outbox listing, sorted by `at`, in one
 * streamed pass (memory holds only those); `more` when the listing had
 * others. `undefined` once `signal` aborts.
 */
export async function earliestEntries(
  entries: AsyncIterable<OutboxEntry>,
  max: number,
  skip: (deliveryId: string) => boolean,
  signal: AbortSignal,
): Promise<{ earliest: OutboxEntry[]; more: boolean } | undefined> {
  const earliest: OutboxEntry[] = [];
  let more = false;
  for await (const entry of entries) {
    if (signal.aborted) return undefined;
    if (skip(entry.deliveryId)) continue;
    if (earliest.length === max) {
      more = true;
      if (entry.at >= earliest[max - 1]!.at) continue;
      earliest.pop();
    }
    earliest.splice(sortedIndex(earliest, entry.at), 0, entry);
  }
  return { earliest, more };
}

/** Where `at` goes in a list sorted by `at` (after its equals). */
function sortedIndex(list: ReadonlyArray<{ at: number }>, at: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (list[middle]!.at <= at) low = middle + 1;
    else high = middle;
  }
  return low;
}
