import type { Logger } from '@nestjs/common';
import { pausePoint } from '../common/pause-point.js';
import { TranscriptAppender } from '../transcript/transcript-appender.js';
import type { LedgerRecord } from './ledger-record.js';
import { latestByPrompt, readLedgerTail } from './ledger-tail.js';

/** Sessions whose parsed tail is kept (a bound, not an index). */
const MAX_CACHED_SESSIONS = 64;

/** A parsed tail: its records in file order, and each prompt's latest one. */
export interface LedgerView {
  records: LedgerRecord[];
  latest: Map<string, LedgerRecord>;
}

const EMPTY: LedgerView = { records: [], latest: new Map() };

/** A live session's ledger file, and what this process knows of it. */
export interface LedgerFile {
  path: string;
  /** Tail of the serialized appends. */
  tail: Promise<void>;
  /** Appends written so far: a parsed tail is current while this has not moved (this process is the ledger's one writer). */
  version: number;
  /** Prompts a rewind took off the active chain: the ledger no longer answers for them. */
  rewound: Set<string>;
  /** The rewinds of earlier processes, read once from the transcript when the session became live here. */
  rebuilt?: Promise<void>;
}

/**
 * The ledger files of live sessions: appends serialized per session and best
 * effort (each opens the file, seals a torn last line and closes it again; a
 * failure is logged), and the parsed tail, kept until this process appends
 * again, with concurrent reads of a session sharing one.
 */
export class LedgerFiles {
  private readonly files = new Map<string, LedgerFile>();
  private readonly cache = new Map<string, { version: number; view: LedgerView }>();
  private readonly reads = new Map<string, Promise<LedgerView>>();

  constructor(
    /** Where a live session's ledger is now; `undefined` when its transcript is not recorded. */
    private readonly pathOf: (sessionId: string) => string | undefined,
    /** Asked before each write: a node that lost the session's lease writes nothing more (its new owner does). */
    private readonly mayWrite: (sessionId: string) => boolean | Promise<boolean>,
    private readonly logger: Logger,
  ) {}

  /** The session's ledger file; a new one (nothing known of it) when the session's transcript moved. */
  file(sessionId: string): LedgerFile | undefined {
    let file = this.files.get(sessionId);
    const path = this.pathOf(sessionId);
    if (!path) return file;
    if (!file || file.path !== path) {
      file = { path, tail: file?.tail ?? Promise.resolve(), version: (file?.version ?? 0) + 1, rewound: new Set() };
      this.files.set(sessionId, file);
    }
    return file;
  }

  /** Resolves once every append issued so far for the session has been written (or failed). */
  async flush(sessionId: string): Promise<void> {
    await this.files.get(sessionId)?.tail;
  }

  /** Flushes the session's appends, then lets go of what is held of it. */
  async detach(sessionId: string): Promise<void> {
    await this.flush(sessionId);
    this.files.delete(sessionId);
    this.cache.delete(sessionId);
  }

  /** The parsed tail, re-read only when the file changed; concurrent reads of a session share one. */
  view(sessionId: string): Promise<LedgerView> {
    let reading = this.reads.get(sessionId);
    if (!reading) {
      reading = this.readView(sessionId).finally(() => this.reads.delete(sessionId));
      this.reads.set(sessionId, reading);
    }
    return reading;
  }

  /** Queues one record; the path is taken now, while the session's transcript is attached. */
  append(sessionId: string, record: LedgerRecord): void {
    const file = this.file(sessionId);
    if (!file) return;
    const line = JSON.stringify(record);
    file.tail = file.tail.then(async () => {
      try {
        if ((await this.mayWrite(sessionId)) === false) return;
        pausePoint?.('ledger-append', sessionId);
        const appender = new TranscriptAppender(file.path);
        try {
          await appender.append(line);
        } finally {
          file.version += 1;
          await appender.close();
        }
      } catch (error) {
        const code = (error as NodeJS.ErrnoException)?.code;
        this.logger.warn(`ledger append failed for session ${sessionId}: ${(error as Error)?.name ?? 'error'}${code ? ` ${code}` : ''}`);
      }
    });
  }

  private async readView(sessionId: string): Promise<LedgerView> {
    const file = this.file(sessionId);
    if (!file) return EMPTY;
    const { version } = file;
    const cached = this.cache.get(sessionId);
    if (cached?.version === version) return cached.view;
    const { records } = await readLedgerTail(file.path);
    const view = { records, latest: latestByPrompt(records) };
    this.cache.delete(sessionId);
    this.cache.set(sessionId, { version, view });
    if (this.cache.size > MAX_CACHED_SESSIONS) this.cache.delete(this.cache.keys().next().value as string);
    return view;
  }
}
