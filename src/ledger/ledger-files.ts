import type { Logger } from '@nestjs/common';
import { dirname } from 'node:path';
import { syncDirectory } from '../common/durable-files.js';
import { pausePoint } from '../common/pause-point.js';
import { TranscriptAppender } from '../transcript/transcript-appender.js';
import { fenceMarkerLine, type LedgerRecord } from './ledger-record.js';
import { latestByPrompt, readLedgerTail } from './ledger-tail.js';

/** Sessions whose parsed tail is kept (a bound, not an index). */
const MAX_CACHED_SESSIONS = 64;

/** A parsed tail: its records in file order, and each prompt's latest one. */
export interface LedgerView {
  records: LedgerRecord[];
  latest: Map<string, LedgerRecord>;
}

const EMPTY: LedgerView = { records: [], latest: new Map() };

/**
 * Why an append was not written: `fenced`, this node may no longer write the
 * session (another node claimed it); `storage`, the data dir refused the
 * write or its sync (`code`: the errno's, e.g. `ENOSPC`, `EIO`).
 */
export class LedgerWriteError extends Error {
  constructor(
    readonly reason: 'fenced' | 'storage',
    readonly code?: string,
  ) {
    super(reason === 'fenced' ? 'ledger write refused: the session is fenced' : `ledger write failed${code ? `: ${code}` : ''}`);
    this.name = 'LedgerWriteError';
  }
}

interface PendingAppend {
  /** None: a write of the fence marker alone. */
  record?: LedgerRecord;
  resolve(): void;
  reject(error: LedgerWriteError): void;
}

/** A live session's ledger file, and what this process knows of it. */
export interface LedgerFile {
  path: string;
  /** Appends issued and not yet taken into a write. */
  pending: PendingAppend[];
  /** The write loop under way, if any: it runs until `pending` is empty. */
  writing?: Promise<void>;
  /** Appends written so far: a parsed tail is current while this has not moved (this process is the ledger's one writer). */
  version: number;
  /** Prompts a rewind took off the active chain: the ledger no longer answers for them. */
  rewound: Set<string>;
  /** The rewinds of earlier processes, read once from the transcript when the session became live here. */
  rebuilt?: Promise<void>;
  /** The fence whose marker this process wrote in the file (cluster mode). */
  markedFence?: number;
  /** Whether the file's directory entry was synced (once per file and process). */
  entrySynced?: boolean;
}

/**
 * The ledger files of live sessions: appends serialized per session, group-committed and fenced (docs/ledger.md); an
 * append resolves once its record is synced, or rejects with a {@link LedgerWriteError}. A parsed tail is kept until
 * this process appends again, never across a detach: the session may have had another owner meanwhile.
 */
export class LedgerFiles {
  private readonly files = new Map<string, LedgerFile>();
  /** The last parsed tail of each session, of the file (attachment) and version it was read at. */
  private readonly cache = new Map<string, { file: LedgerFile; version: number; view: LedgerView }>();
  private readonly reads = new Map<string, { file: LedgerFile | undefined; view: Promise<LedgerView> }>();

  constructor(
    /** Where a live session's ledger is now; `undefined` when its transcript is not recorded. */
    private readonly pathOf: (sessionId: string) => string | undefined,
    /** Asked before each write: a node that lost the session's lease writes nothing more (its new owner does). */
    private readonly mayWrite: (sessionId: string) => boolean | Promise<boolean>,
    private readonly logger: Logger,
    /** The fence of this node's lease on the session, carried by each line it writes (none for a single daemon). */
    private readonly fenceOf: (sessionId: string) => number | undefined = () => undefined,
  ) {}

  /** The session's ledger file; a new one (nothing known of it) when the session's transcript moved. */
  file(sessionId: string): LedgerFile | undefined {
    let file = this.files.get(sessionId);
    const path = this.pathOf(sessionId);
    if (!path) return file;
    if (!file || file.path !== path) {
      file = { path, pending: [], version: (file?.version ?? 0) + 1, rewound: new Set() };
      this.files.set(sessionId, file);
    }
    return file;
  }

  /** Resolves once every append issued so far for the session has been written (or failed). */
  async flush(sessionId: string): Promise<void> {
    await this.files.get(sessionId)?.writing;
  }

  /** Flushes the session's appends, then lets go of what is held of it. */
  async detach(sessionId: string): Promise<void> {
    await this.flush(sessionId);
    this.files.delete(sessionId);
    this.cache.delete(sessionId);
  }

  /** The parsed tail, re-read only when the file changed; concurrent reads of one attachment of a session share one. */
  view(sessionId: string): Promise<LedgerView> {
    const file = this.file(sessionId);
    const shared = this.reads.get(sessionId);
    if (shared && shared.file === file) return shared.view;
    const reading = { file, view: this.readView(sessionId, file) };
    this.reads.set(sessionId, reading);
    const forget = () => {
      if (this.reads.get(sessionId) === reading) this.reads.delete(sessionId);
    };
    reading.view.then(forget, forget);
    return reading.view;
  }

  /**
   * Queues one record; the path is taken now, while the session's transcript
   * is attached. Resolves once it is written and synced; rejects with a
   * {@link LedgerWriteError} (a caller that does not wait need not catch).
   */
  append(sessionId: string, record: LedgerRecord): Promise<void> {
    return this.enqueue(sessionId, record);
  }

  private enqueue(sessionId: string, record: LedgerRecord | undefined): Promise<void> {
    const file = this.file(sessionId);
    if (!file) return Promise.resolve();
    const written = new Promise<void>((resolve, reject) => file.pending.push({ record, resolve, reject }));
    written.catch(() => undefined);
    this.drain(sessionId, file);
    return written;
  }

  /** Runs the session's write loop unless it runs already: each turn writes every append pending, in one sync. */
  private drain(sessionId: string, file: LedgerFile): void {
    file.writing ??= (async () => {
      await Promise.resolve(); // appends issued in the same tick join the first write
      while (file.pending.length > 0) {
        const batch = file.pending.splice(0);
        const failure = await this.write(
          sessionId,
          file,
          batch.map((append) => append.record),
        ).then(
          () => undefined,
          (error: unknown) => this.failure(sessionId, error),
        );
        for (const append of batch) {
          if (failure) append.reject(failure);
          else append.resolve();
        }
      }
      file.writing = undefined;
    })();
  }

  /** One group commit: the fence check, the lines (behind a marker of a fence not yet marked), the sync, the check again. */
  private async write(sessionId: string, file: LedgerFile, records: Array<LedgerRecord | undefined>): Promise<void> {
    // Fence check → append: a stale owner's line that still lands after a newer claim's marker is skipped by readers.
    if ((await this.mayWrite(sessionId)) === false) throw new LedgerWriteError('fenced');
    pausePoint?.('ledger-append', sessionId);
    const fence = this.fenceOf(sessionId);
    const lines = records.flatMap((record) => (record ? [JSON.stringify(fence === undefined ? record : { ...record, fence })] : []));
    if (fence !== undefined && file.markedFence !== fence) lines.unshift(fenceMarkerLine(fence));
    if (lines.length === 0) return;
    const appender = new TranscriptAppender(file.path);
    try {
      await appender.append(lines.join('\n'));
      await appender.sync();
    } finally {
      file.version += 1;
      await appender.close();
    }
    if (!file.entrySynced) {
      // A ledger created by this write is found after a power loss only once its directory is synced.
      await syncDirectory(dirname(file.path));
      file.entrySynced = true;
    }
    // Asked again once synced: lines that landed after a newer claim's marker are skipped by readers, so they are not
    // acknowledged. A claim records its fence, synced, before its marker is written, so this check sees it.
    if ((await this.mayWrite(sessionId)) === false) throw new LedgerWriteError('fenced');
    file.markedFence = fence;
  }

  private failure(sessionId: string, error: unknown): LedgerWriteError {
    if (error instanceof LedgerWriteError) return error;
    const code = (error as NodeJS.ErrnoException)?.code;
    this.logger.warn(`ledger append failed for session ${sessionId}: ${(error as Error)?.name ?? 'error'}${code ? ` ${code}` : ''}`);
    return new LedgerWriteError('storage', code);
  }

  private async readView(sessionId: string, file: LedgerFile | undefined): Promise<LedgerView> {
    if (!file) return EMPTY;
    const fence = this.fenceOf(sessionId);
    if (fence !== undefined && file.markedFence !== fence) {
      // A new owner marks its fence before it reads: a stale owner's line after the marker is then skipped.
      await this.enqueue(sessionId, undefined).catch(() => undefined);
    }
    const { version } = file;
    const cached = this.cache.get(sessionId);
    // Versions count one attachment's writes: a tail read before a detach is no answer after it, whatever its number.
    if (cached?.file === file && cached.version === version) return cached.view;
    const { records } = await readLedgerTail(file.path);
    const view = { records, latest: latestByPrompt(records) };
    if (this.files.get(sessionId) !== file) return view; // detached during the read: nothing is kept of it
    this.cache.delete(sessionId);
    this.cache.set(sessionId, { file, version, view });
    if (this.cache.size > MAX_CACHED_SESSIONS) this.cache.delete(this.cache.keys().next().value as string);
    return view;
  }
}
