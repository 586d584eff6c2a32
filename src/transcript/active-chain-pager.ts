import type { TranscriptRecord } from './transcript-record.js';
import { LineTooLargeError, type TranscriptSnapshot } from './transcript-snapshot.js';

/**
 * Where a backward walk of the active chain stands: read everything before
 * `offset`; the next chain record is the one whose uuid is `expect`
 * (`undefined` before the head is found, `null` once the root was passed).
 */
export interface ChainCursor {
  offset: number;
  expect: string | null | undefined;
}

export interface PageLimits {
  records: number;
  bytes: number;
}

export interface ChainPage {
  /** Active-chain records of this page, newest first. */
  records: TranscriptRecord[];
  /** Where the next page starts; absent once the chain's root was reached (or on a hit). */
  next?: ChainCursor;
  /** The first record `stopAt` accepted; the page ends there. */
  hit?: TranscriptRecord;
}

export class InvalidCursorError extends Error {}

/**
 * Reads one page of the active chain: at most `records` chain records, and at
 * most `bytes` of file traversed (off-chain lines count too, so a long
 * abandoned branch cannot make a page unbounded). The chain is the
 * `parentUuid` walk back from the last record; parents precede children in an
 * append-only file, so one backward pass finds it.
 */
export async function readChainPage(
  snapshot: TranscriptSnapshot,
  cursor: ChainCursor,
  limits: PageLimits,
  stopAt?: (record: TranscriptRecord) => boolean,
): Promise<ChainPage> {
  if (!Number.isSafeInteger(cursor.offset) || cursor.offset < 0 || cursor.offset > snapshot.size) {
    throw new InvalidCursorError();
  }
  if (cursor.expect === null || cursor.offset === 0) return { records: [] };
  const records: TranscriptRecord[] = [];
  let expect: string | null | undefined = cursor.expect;
  let bytes = 0;
  for await (const line of snapshot.linesBefore(cursor.offset, limits.bytes)) {
    if (bytes + line.bytes > limits.bytes) {
      if (bytes === 0) throw new LineTooLargeError(line.bytes);
      return { records, next: { offset: line.start + line.bytes, expect } };
    }
    bytes += line.bytes;
    const record = line.record;
    if (!record || (expect !== undefined && record.uuid !== expect)) continue;
    records.push(record);
    if (stopAt?.(record)) return { records, hit: record };
    expect = record.parentUuid;
    if (expect === null) return { records };
    if (records.length === limits.records) return { records, next: { offset: line.start, expect } };
  }
  return { records };
}

/**
 * The newest active-chain record `predicate` accepts within `maxPages` pages,
 * stopping as soon as it is found: a lookup of a recent result reads a few
 * records, a miss reads the whole window and no more.
 */
export async function findOnActiveChain(
  snapshot: TranscriptSnapshot,
  limits: PageLimits,
  maxPages: number,
  predicate: (record: TranscriptRecord) => boolean,
): Promise<TranscriptRecord | undefined> {
  let cursor: ChainCursor | undefined = { offset: snapshot.size, expect: undefined };
  for (let page = 0; page < maxPages && cursor; page += 1) {
    const { hit, next }: ChainPage = await readChainPage(snapshot, cursor, limits, predicate);
    if (hit) return hit;
    cursor = next;
  }
  return undefined;
}

/** The active chain page by page, newest first, from the end of the snapshot. */
export async function* activeChainPages(snapshot: TranscriptSnapshot, limits: PageLimits): AsyncGenerator<TranscriptRecord[]> {
  let cursor: ChainCursor | undefined = { offset: snapshot.size, expect: undefined };
  while (cursor) {
    const page: ChainPage = await readChainPage(snapshot, cursor, limits);
    yield page.records;
    cursor = page.next;
  }
}
