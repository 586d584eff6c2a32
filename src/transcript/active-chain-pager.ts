import { ExpectedUuid } from './expected-uuid.js';
import type { TranscriptRecord } from './transcript-record.js';
import type { SnapshotLine } from './snapshot-line.js';
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

/**
 * What a walk looks for: `candidate` is a cheap test of the raw line (e.g. a
 * substring) that decides whether the record is parsed at all; `accept`
 * decides on the parsed record.
 */
export interface ChainSearch {
  candidate(line: SnapshotLine): boolean;
  accept(record: TranscriptRecord): boolean;
  /**
   * Bytes every candidate line contains: a read buffer without them is
   * searched once (natively) and none of its lines is looked at — a miss
   * costs the chain walk and one search per buffer.
   */
  required?: Buffer;
}

/** The read buffers of `batch` that do not contain `required` (each searched once). */
function buffersWithout(batch: readonly SnapshotLine[], required: Buffer | undefined): Set<Buffer> | undefined {
  if (!required) return undefined;
  const seen = new Set<Buffer>();
  const without = new Set<Buffer>();
  for (const line of batch) {
    const source = line.source;
    if (!source || seen.has(source)) continue;
    seen.add(source);
    if (!source.includes(required)) without.add(source);
  }
  return without;
}

/**
 * The record a search accepts on this chain line, if any: a line in a read
 * without the search's required bytes is not looked at, others pass the
 * cheap test before they are parsed.
 */
function acceptedOn(line: SnapshotLine, search: ChainSearch | undefined, without: Set<Buffer> | undefined): TranscriptRecord | undefined {
  if (!search || (without && line.source && without.has(line.source)) || !search.candidate(line)) return undefined;
  const record = line.record;
  return record && search.accept(record) ? record : undefined;
}

export interface ChainPage {
  /** Active-chain records this page walked. */
  count: number;
  /** Where the next page starts; absent once the chain's root was reached (or on a hit). */
  next?: ChainCursor;
  /** The first record the search accepted; the page ends there. */
  hit?: TranscriptRecord;
}

export class InvalidCursorError extends Error {}

/**
 * Reads one page of the active chain: at most `records` chain records, and at
 * most `bytes` of file traversed (off-chain lines count too, so a long
 * abandoned branch cannot make a page unbounded). The chain is the
 * `parentUuid` walk back from the last record; parents precede children in an
 * append-only file, so one backward pass finds it. Lines are followed by
 * their chain links; only candidates of the search are parsed.
 */
export async function readChainPage(
  snapshot: TranscriptSnapshot,
  cursor: ChainCursor,
  limits: PageLimits,
  search?: ChainSearch,
): Promise<ChainPage> {
  if (!Number.isSafeInteger(cursor.offset) || cursor.offset < 0 || cursor.offset > snapshot.size) {
    throw new InvalidCursorError();
  }
  if (cursor.expect === null || cursor.offset === 0) return { count: 0 };
  let count = 0;
  const expected = ExpectedUuid.of(cursor.expect);
  let bytes = 0;
  for await (const batch of snapshot.batchesBefore(cursor.offset, limits.bytes)) {
    const without = buffersWithout(batch, search?.required);
    for (const line of batch) {
      if (bytes + line.bytes > limits.bytes) {
        if (bytes === 0) throw new LineTooLargeError(line.bytes - 1);
        return { count, next: { offset: line.start + line.bytes, expect: expected.value() } };
      }
      bytes += line.bytes;
      if (!line.follow(expected)) continue;
      count += 1;
      const hit = acceptedOn(line, search, without);
      if (hit) return { count, hit };
      if (expected.pastRoot) return { count };
      if (count === limits.records) return { count, next: { offset: line.start, expect: expected.value() } };
    }
  }
  return { count };
}

/**
 * The newest active-chain record the search accepts within `maxPages` pages
 * (the same pages {@link readChainPage} reads, walked in one pass so no chunk
 * is read twice), stopping as soon as it is found: a lookup of a recent
 * result reads a few records, a miss reads the whole window and no more.
 */
export async function findOnActiveChain(
  snapshot: TranscriptSnapshot,
  limits: PageLimits,
  maxPages: number,
  search: ChainSearch,
  progress?: { records: number },
): Promise<TranscriptRecord | undefined> {
  let pages = 1;
  let count = 0;
  let bytes = 0;
  // What the walk went through so far, for its estimate of what is left: the window's records at this walk's bytes per record.
  let walkedRecords = 0;
  let walkedBytes = 0;
  const bytesWanted = () => (walkedRecords === 0 ? Infinity : ((maxPages * limits.records - walkedRecords) * walkedBytes) / walkedRecords);
  const expected = ExpectedUuid.of(undefined);
  for await (const batch of snapshot.batchesBefore(snapshot.size, limits.bytes, { bytesWanted })) {
    const without = buffersWithout(batch, search.required);
    for (const line of batch) {
      if (bytes + line.bytes > limits.bytes) {
        // The line opens the next page (or is too large for any).
        if (bytes === 0 || line.bytes > limits.bytes) throw new LineTooLargeError(line.bytes - 1);
        if (++pages > maxPages) return undefined;
        bytes = 0;
        count = 0;
      }
      bytes += line.bytes;
      walkedBytes += line.bytes;
      if (!line.follow(expected)) continue;
      count += 1;
      walkedRecords += 1;
      if (progress) progress.records += 1;
      const hit = acceptedOn(line, search, without);
      if (hit) return hit;
      if (expected.pastRoot) return undefined;
      if (count === limits.records) {
        if (++pages > maxPages) return undefined;
        bytes = 0;
        count = 0;
      }
    }
  }
  return undefined;
}
