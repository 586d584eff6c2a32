import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ApiErrors } from '../common/api-errors.js';
import { ApiException } from '../common/api-exception.js';
import { Clock } from '../common/clock.js';
import { SESSION_ID_PATTERN, TRANSCRIPT_SCAN_LIMITS } from '../common/limits.js';
import { findOnActiveChain } from './active-chain-pager.js';
import { isTurnResult, parseRecord, REWIND_SUBTYPE, type TranscriptEntry, type TranscriptRecord } from './transcript-record.js';
import { LineTooLargeError, NotRegularFileError, SAFE_OPEN, SnapshotChangedError, TranscriptSnapshot } from './transcript-snapshot.js';
import { TURNS_CHANNELS } from '../telemetry/turns-channels.js';

export interface ChatRecordingOptions {
  /** Root of all transcripts: `<dataDir>/<workspaceKey>/chats/<sessionId>.jsonl`. */
  dataDir: string;
  /** When false nothing is written (and nothing can be found after a restart). */
  enabled: boolean;
  /** Rewind, fork and load refuse a larger transcript (`413 transcript_too_large`). @default 256 MiB */
  maxTranscriptBytes?: number;
  /**
   * Asked before each write; `false` drops it. A cluster node that lost a
   * session's lease must not append to the transcript its new owner writes.
   * @default always true
   */
  mayWrite?: (sessionId: string) => boolean | Promise<boolean>;
}

export const CHAT_RECORDING_OPTIONS = Symbol('CHAT_RECORDING_OPTIONS');

/** Directory name of a workspace under the data dir: readable, and unique by path. */
export function workspaceKey(cwd: string): string {
  const name =
    basename(cwd)
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .slice(0, 40) || 'root';
  return `${name}-${createHash('sha256').update(cwd).digest('hex').slice(0, 12)}`;
}

interface OpenTranscript {
  sessionId: string;
  path: string;
  lastUuid: string | null;
  /** Tail of the serialized append chain. */
  tail: Promise<unknown>;
}

/**
 * Whole-chain walks (rewind, fork, load) read pages of at most this many
 * bytes: memory stays bounded whatever the file's size; a longer line is
 * passed over as unreadable.
 */
const CHAIN_PAGE_BYTES = TRANSCRIPT_SCAN_LIMITS.bytesPerPage;
/** Load looks this far back for the record new appends continue from. */
const LOAD_TAIL_BYTES = TRANSCRIPT_SCAN_LIMITS.bytesPerPage * TRANSCRIPT_SCAN_LIMITS.maxPages;
const NEWLINE = 0x0a;

/**
 * Appends a session's JSONL transcript, one serialized write at a time, best
 * effort: a failed append is logged (without its content) and reported as
 * `undefined`, never thrown into the prompt's lifecycle.
 *
 * Crash safety: an append to a file whose last byte is not a newline (a torn
 * write from a crash or a full disk) starts a new line first, so the fragment
 * stays one skipped line and the chain continues from the last record that
 * parsed. Transcripts are opened without following symlinks or blocking on
 * FIFOs; anything but a regular file is refused.
 */
@Injectable()
export class ChatRecordingService implements OnApplicationShutdown {
  private readonly logger = new Logger('ChatRecordingService');
  private readonly open = new Map<string, OpenTranscript>();
  private readonly maxTranscriptBytes: number;
  private closed = false;

  constructor(
    @Inject(CHAT_RECORDING_OPTIONS) private readonly options: ChatRecordingOptions,
    private readonly clock: Clock,
  ) {
    this.maxTranscriptBytes = options.maxTranscriptBytes ?? TRANSCRIPT_SCAN_LIMITS.maxSnapshotBytes;
  }

  /** Path of a session's transcript; throws for an id that is not a UUID (no path escape). */
  transcriptPath(workspace: string, sessionId: string): string {
    if (!SESSION_ID_PATTERN.test(sessionId)) throw new Error('invalid session id');
    return join(this.options.dataDir, workspaceKey(workspace), 'chats', `${sessionId}.jsonl`);
  }

  /** True when `workspace` holds a transcript (of any kind) for `sessionId`. */
  async exists(workspace: string, sessionId: string): Promise<boolean> {
    if (!SESSION_ID_PATTERN.test(sessionId)) return false;
    return lstat(this.transcriptPath(workspace, sessionId)).then(
      () => true,
      () => false,
    );
  }

  /**
   * Starts recording a live session; a resumed one continues from the last
   * record that parses within a bounded tail. Refuses a transcript that is
   * not a regular file or is larger than the configured bound.
   */
  async attach(sessionId: string, workspace: string): Promise<void> {
    const path = this.transcriptPath(workspace, sessionId);
    const lastUuid = await this.withSnapshot(sessionId, path, async (snapshot) => {
      for await (const line of snapshot.linesBefore(snapshot.size, CHAIN_PAGE_BYTES, true)) {
        const links = line.links();
        if (links) return links.uuid;
        if (snapshot.size - line.start > LOAD_TAIL_BYTES) break;
      }
      return null;
    }).catch((error: unknown) => {
      // Recording is best effort: an unreadable data dir starts a fresh chain.
      if (error instanceof ApiException && error.code === 'transcript_snapshot_unavailable') {
        this.logger.warn(`transcript of session ${sessionId} is unreadable; recording starts a new chain`);
        return null;
      }
      throw error;
    });
    this.open.set(sessionId, { sessionId, path, lastUuid: lastUuid ?? null, tail: Promise.resolve() });
  }

  /** Path of a live session's transcript, if it is being recorded (so never with recording off). */
  pathOf(sessionId: string): string | undefined {
    return this.options.enabled ? this.open.get(sessionId)?.path : undefined;
  }

  /**
   * A file beside a live session's transcript (`<sessionId><suffix>`), for
   * what lives with the session (its webhook subscriptions); with recording
   * off too.
   */
  companionPath(sessionId: string, suffix: string): string | undefined {
    return this.open.get(sessionId)?.path.replace(/\.jsonl$/, suffix);
  }

  /** Appends one record chained after the previous one; `undefined` when not written. */
  append(sessionId: string, entry: TranscriptEntry, parentUuid?: string | null): Promise<TranscriptRecord | undefined> {
    const transcript = this.open.get(sessionId);
    if (!transcript || !this.options.enabled || this.closed) return Promise.resolve(undefined);
    const write = transcript.tail.then(async () => {
      if (this.closed || this.open.get(sessionId) !== transcript) return undefined;
      if ((await (this.options.mayWrite?.(sessionId) ?? true)) === false) return undefined;
      const record: TranscriptRecord = {
        uuid: randomUUID(),
        parentUuid: parentUuid === undefined ? transcript.lastUuid : parentUuid,
        sessionId,
        timestamp: new Date(this.clock.now()).toISOString(),
        ...entry,
      };
      try {
        await this.appendLine(transcript.path, JSON.stringify(record));
      } catch (error) {
        TURNS_CHANNELS.recorderAppendFailed.publish({ sessionId });
        this.logger.warn(
          `append failed for session ${sessionId}: ${(error as Error).name}${(error as NodeJS.ErrnoException).code ? ` ${(error as NodeJS.ErrnoException).code}` : ''}`,
        );
        return undefined;
      }
      transcript.lastUuid = record.uuid;
      return record;
    });
    transcript.tail = write;
    return write;
  }

  /** Resolves once every append issued so far has been written (or failed). */
  async flush(sessionId: string): Promise<void> {
    await this.open.get(sessionId)?.tail;
  }

  async detach(sessionId: string): Promise<void> {
    await this.flush(sessionId);
    this.open.delete(sessionId);
  }

  /** Stops recording at once: appends not yet written are dropped (the session is no longer this node's). */
  abandon(sessionId: string): void {
    this.open.delete(sessionId);
  }

  /**
   * Moves the prompt's turn and all after it off the active chain by
   * appending a `system/rewind` record parented before its user record.
   * Returns false when the prompt is not on the active chain. Walks the chain
   * backward page by page: memory does not grow with the file.
   */
  async rewind(sessionId: string, promptId: string): Promise<boolean> {
    const transcript = this.open.get(sessionId);
    if (!transcript) return false;
    await this.flush(sessionId);
    const needle = Buffer.from(JSON.stringify(promptId).slice(1, -1));
    const target = await this.withSnapshot(sessionId, transcript.path, (snapshot) =>
      findOnActiveChain(snapshot, { records: Infinity, bytes: CHAIN_PAGE_BYTES }, Infinity, {
        candidate: (line) => line.includes(needle),
        accept: (r) => r.type === 'user' && r.promptId === promptId,
      }),
    );
    if (!target) return false;
    const record = await this.append(
      sessionId,
      { type: 'system', subtype: REWIND_SUBTYPE, systemPayload: { promptId } },
      target.parentUuid,
    );
    return record !== undefined;
  }

  /**
   * Writes a new session's transcript from the source's active chain, without
   * `turn_result` records (a fork must not inherit prompt identities); a record
   * whose parent was dropped is re-parented to that record's parent. Two
   * passes over the file — the chain's line offsets backward, then the lines
   * forward — so memory holds offsets, never the records.
   */
  async fork(sourceId: string, targetId: string, workspace: string): Promise<void> {
    const source = this.open.get(sourceId);
    if (source && this.options.enabled) {
      await this.flush(sourceId);
      const path = this.transcriptPath(workspace, targetId);
      await this.withSnapshot(sourceId, source.path, async (snapshot) => {
        const offsets = await chainOffsets(snapshot);
        if (offsets.length === 0) return;
        await mkdir(dirname(path), { recursive: true });
        const out = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | SAFE_OPEN, 0o600);
        try {
          const replacement = new Map<string, string | null>();
          for (let i = offsets.length - 2; i >= 0; i -= 2) {
            const record = parseRecord((await snapshot.lineAt(offsets[i]!, offsets[i + 1]!)).trim());
            if (!record) continue;
            const parent =
              record.parentUuid !== null && replacement.has(record.parentUuid) ? replacement.get(record.parentUuid)! : record.parentUuid;
            if (isTurnResult(record)) {
              replacement.set(record.uuid, parent);
              continue;
            }
            // Nor its prompts' idempotency keys: they answered for the source session.
            const { idempotency: _idempotency, ...copied } = record;
            await out.write(`${JSON.stringify({ ...copied, parentUuid: parent, sessionId: targetId })}\n`);
          }
        } finally {
          await out.close();
        }
      });
    }
    await this.attach(targetId, workspace);
  }

  /** Stops recording: later appends write nothing, and every pending one is flushed. */
  async onApplicationShutdown(): Promise<void> {
    await this.closeAll();
  }

  /** Flushes every open transcript and refuses further appends. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.open.keys()].map((id) => this.flush(id)));
    this.closed = true;
    this.open.clear();
  }

  /**
   * Opens a snapshot for a whole-transcript operation, with the structured
   * errors: not a regular file (409), over the size bound (413).
   */
  private async withSnapshot<T>(
    sessionId: string,
    path: string,
    use: (snapshot: TranscriptSnapshot) => Promise<T>,
  ): Promise<T | undefined> {
    let snapshot: TranscriptSnapshot | undefined;
    try {
      snapshot = await TranscriptSnapshot.open(path);
    } catch (error) {
      if (error instanceof NotRegularFileError) throw ApiErrors.transcriptUnavailable(sessionId);
      throw ApiErrors.transcriptSnapshotUnavailable(sessionId);
    }
    if (!snapshot) return undefined;
    try {
      if (snapshot.size > this.maxTranscriptBytes) throw ApiErrors.transcriptTooLarge(sessionId, snapshot.size, this.maxTranscriptBytes);
      return await use(snapshot);
    } catch (error) {
      if (error instanceof SnapshotChangedError) throw ApiErrors.transcriptSnapshotUnavailable(sessionId);
      if (error instanceof LineTooLargeError) throw ApiErrors.transcriptPageTooLarge(sessionId, error.bytes, CHAIN_PAGE_BYTES);
      throw error;
    } finally {
      await snapshot.close();
    }
  }

  /** One line, after a newline of its own if the file ends in a torn one; regular files only. */
  private async appendLine(path: string, line: string): Promise<void> {
    await mkdir(dirname(path), { recursive: true });
    const handle = await open(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | SAFE_OPEN, 0o600);
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw new NotRegularFileError();
      let torn = false;
      if (info.size > 0) {
        const last = Buffer.alloc(1);
        await handle.read(last, 0, 1, info.size - 1);
        torn = last[0] !== NEWLINE;
      }
      await handle.write(`${torn ? '\n' : ''}${line}\n`);
    } finally {
      await handle.close();
    }
  }
}

/**
 * `[start, bytes, start, bytes, …]` of the active chain's lines, newest first:
 * the chain of a whole file as numbers, read page by page.
 */
async function chainOffsets(snapshot: TranscriptSnapshot): Promise<number[]> {
  const offsets: number[] = [];
  let expect: string | null | undefined;
  for await (const line of snapshot.linesBefore(snapshot.size, CHAIN_PAGE_BYTES, true)) {
    const links = line.links();
    if (!links || (expect !== undefined && links.uuid !== expect)) continue;
    offsets.push(line.start, line.bytes);
    expect = links.parentUuid;
    if (expect === null) break;
  }
  return offsets;
}
