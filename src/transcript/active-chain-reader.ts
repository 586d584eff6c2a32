import { constants } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { transcriptTooLarge } from '../errors/api-errors.js';
import { TRANSCRIPT_SCAN_LIMITS } from '../turns/rules/limits.js';
import { ActiveChain } from './active-chain.js';
import { transcriptApiError } from './transcript-errors.js';
import type { TranscriptRecord } from './transcript-record.js';
import { SAFE_OPEN, TranscriptSnapshot } from './transcript-snapshot.js';

/**
 * Whole-chain walks (rewind, fork, load) read pages of at most this many
 * bytes: memory stays bounded whatever the file's size; a longer line is
 * passed over as unreadable.
 */
const CHAIN_PAGE_BYTES = TRANSCRIPT_SCAN_LIMITS.bytesPerPage;
/** Load looks this far back for the record new appends continue from. */
const LOAD_TAIL_BYTES = TRANSCRIPT_SCAN_LIMITS.bytesPerPage * TRANSCRIPT_SCAN_LIMITS.maxPages;

/** What a live session's active chain says of some uuids and of rewinds (see {@link ActiveChain.rewindFacts}). */
export type RewindFacts = Awaited<ReturnType<ActiveChain['rewindFacts']>>;

/**
 * The whole-transcript operations over a transcript's {@link ActiveChain},
 * each on a snapshot opened for it and closed after, with the structured
 * errors: not a regular file (409), over the size bound (413), a line over
 * the page (413). A missing transcript answers `undefined`.
 */
export class ActiveChainReader {
  constructor(private readonly maxTranscriptBytes: number = TRANSCRIPT_SCAN_LIMITS.maxSnapshotBytes) {}

  /** The uuid of the record new appends continue from: the last that parses within a bounded tail, and no newer fence outranks. */
  head(sessionId: string, path: string): Promise<string | null | undefined> {
    return this.walk(sessionId, path, undefined, (chain) => chain.head(CHAIN_PAGE_BYTES, LOAD_TAIL_BYTES));
  }

  // `tip`, in the walks below: the uuid the chain ends at, when the caller knows it (see ActiveChain).

  /** The `user` record of a prompt on the active chain. */
  userRecordOf(sessionId: string, path: string, promptId: string, tip?: string): Promise<TranscriptRecord | undefined> {
    return this.walk(sessionId, path, tip, (chain) => chain.userRecordOf(promptId, CHAIN_PAGE_BYTES));
  }

  /** The prompts on the active chain, oldest first. */
  userPrompts(sessionId: string, path: string, tip?: string): Promise<Array<{ promptId: string; timestamp: string }> | undefined> {
    return this.walk(sessionId, path, tip, (chain) => chain.userPrompts(CHAIN_PAGE_BYTES));
  }

  rewindFacts(sessionId: string, path: string, uuids: ReadonlySet<string>, tip?: string): Promise<RewindFacts | undefined> {
    return this.walk(sessionId, path, tip, (chain) => chain.rewindFacts(uuids, CHAIN_PAGE_BYTES));
  }

  /** Writes a new transcript at `targetPath` (never over an existing file) from the active chain (see {@link ActiveChain.copyTo}). */
  async copy(sessionId: string, path: string, targetPath: string, targetId: string, tip?: string): Promise<void> {
    await this.walk(sessionId, path, tip, async (chain) => {
      await mkdir(dirname(targetPath), { recursive: true });
      const out = await open(targetPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | SAFE_OPEN, 0o600);
      try {
        await chain.copyTo(out, targetId, CHAIN_PAGE_BYTES);
      } finally {
        await out.close();
      }
    });
  }

  private async walk<T>(
    sessionId: string,
    path: string,
    tip: string | undefined,
    use: (chain: ActiveChain) => Promise<T>,
  ): Promise<T | undefined> {
    let snapshot: TranscriptSnapshot | undefined;
    try {
      snapshot = await TranscriptSnapshot.open(path);
      if (!snapshot) return undefined;
      if (snapshot.size > this.maxTranscriptBytes) throw transcriptTooLarge(sessionId, snapshot.size, this.maxTranscriptBytes);
      return await use(new ActiveChain(snapshot, tip));
    } catch (error) {
      throw transcriptApiError(sessionId, error, CHAIN_PAGE_BYTES);
    } finally {
      await snapshot?.close();
    }
  }
}
