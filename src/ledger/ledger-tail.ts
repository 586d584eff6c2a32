import { FenceOrder } from '../transcript/fence-order.js';
import { readTailLines } from '../transcript/tail-lines.js';
import {
  isTerminalRecord,
  readLedgerLine,
  type LedgerInFlightRecord,
  type LedgerRecord,
  type LedgerTerminalRecord,
} from './ledger-record.js';

/**
 * How much of a ledger any read looks at: its last 256 KiB (docs/ledger.md), so a
 * read costs the same whatever the file's size.
 */
export const LEDGER_TAIL_BYTES = 256 * 1024;
/** Terminals `load` answers, and the fallback of the exact route looks among. */
export const LEDGER_TERMINALS = 64;

/** The records of a ledger's tail, oldest first, and how many bytes were read to get them. */
export interface LedgerTail {
  records: LedgerRecord[];
  bytesRead: number;
}

/**
 * Reads the records in the last `maxBytes` of a ledger; a line that does not
 * parse (a torn tail) is skipped, and so is a stale owner's line that a newer
 * claim's fence outranks ({@link FenceOrder}).
 */
export async function readLedgerTail(path: string, maxBytes = LEDGER_TAIL_BYTES): Promise<LedgerTail> {
  const { lines, bytesRead } = await readTailLines(path, maxBytes);
  return { records: ledgerRecordsOf(lines), bytesRead };
}

/** The records of ledger lines in file order, without torn lines, markers, and lines a newer fence outranks. */
export function ledgerRecordsOf(lines: readonly string[]): LedgerRecord[] {
  const records: LedgerRecord[] = [];
  const order = new FenceOrder();
  for (const line of lines) {
    const { record, fence } = readLedgerLine(line);
    if (order.admits(fence) && record) records.push(record);
  }
  return records;
}

/** The last `limit` terminal records, oldest first. */
export function recentTerminalsOf(records: readonly LedgerRecord[], limit = LEDGER_TERMINALS): LedgerTerminalRecord[] {
  const terminals = records.filter(isTerminalRecord);
  return terminals.slice(Math.max(0, terminals.length - limit));
}

/** Each prompt's latest record, in the order those were written. */
export function latestByPrompt(records: readonly LedgerRecord[]): Map<string, LedgerRecord> {
  const latest = new Map<string, LedgerRecord>();
  for (const record of records) {
    latest.delete(record.promptId);
    latest.set(record.promptId, record);
  }
  return latest;
}

/** Prompts whose latest record is `in_flight`, in admission order: the ones a crash left unsettled. */
export function danglingPrompts(latest: ReadonlyMap<string, LedgerRecord>): LedgerInFlightRecord[] {
  return [...latest.values()].filter((record): record is LedgerInFlightRecord => !isTerminalRecord(record));
}

/** What the transcript's active chain says, as {@link rewoundPrompts} needs it. */
export interface ChainFacts {
  /** Which of the asked record uuids (the in-flight records' `tailUuid`) are on the chain. */
  onChain: ReadonlySet<string>;
  /** Prompts with a `user` record on the chain. */
  prompts: ReadonlySet<string>;
  /** Prompts the chain's `system/rewind` records went back to. */
  rewindTargets: ReadonlySet<string>;
}

/**
 * The ledger's prompts a rewind took off the active chain, as the transcript
 * says after a restart: not on the chain, and either a rewind's target or
 * admitted after a record the chain no longer holds (the chain's head at
 * admission, so a prompt admitted on a branch later left). A prompt that
 * never reached the transcript (cancelled while queued, lost) keeps its answer.
 */
export function rewoundPrompts(records: readonly LedgerRecord[], facts: ChainFacts): Set<string> {
  const rewound = new Set<string>();
  for (const record of records) {
    if (facts.prompts.has(record.promptId)) continue;
    const tailUuid = isTerminalRecord(record) ? undefined : record.tailUuid;
    if (facts.rewindTargets.has(record.promptId) || (tailUuid !== undefined && !facts.onChain.has(tailUuid))) {
      rewound.add(record.promptId);
    }
  }
  return rewound;
}

/** The `tailUuid`s of the in-flight records: what {@link rewoundPrompts} asks the chain about. */
export function tailUuidsOf(records: readonly LedgerRecord[]): Set<string> {
  const uuids = new Set<string>();
  for (const record of records) if (!isTerminalRecord(record) && record.tailUuid !== undefined) uuids.add(record.tailUuid);
  return uuids;
}
