import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { appendFile, mkdir, writeFile, access } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Clock } from '../common/clock.js';
import { SESSION_ID_PATTERN } from '../common/limits.js';
import { activeChainPages } from './active-chain-pager.js';
import { isTurnResult, REWIND_SUBTYPE, type TranscriptEntry, type TranscriptRecord } from './transcript-record.js';
import { TranscriptSnapshot } from './transcript-snapshot.js';

export interface ChatRecordingOptions {
  /** Root of all transcripts: `<dataDir>/<workspaceKey>/chats/<sessionId>.jsonl`. */
  dataDir: string;
  /** When false nothing is written (and nothing can be found after a restart). */
  enabled: boolean;
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
  path: string;
  lastUuid: string | null;
  /** Tail of the serialized append chain. */
  tail: Promise<unknown>;
}

/** Page size of whole-chain reads (rewind, fork): off the poll path, they walk to the root. */
const CHAIN_READ = { records: 10_000, bytes: 64 * 1024 * 1024 };

/**
 * Appends a session's JSONL transcript, one serialized write at a time, best
 * effort: a failed append is logged (without its content) and reported as
 * `undefined`, never thrown into the prompt's lifecycle.
 */
@Injectable()
export class ChatRecordingService {
  private readonly logger = new Logger('ChatRecordingService');
  private readonly open = new Map<string, OpenTranscript>();

  constructor(
    @Inject(CHAT_RECORDING_OPTIONS) private readonly options: ChatRecordingOptions,
    private readonly clock: Clock,
  ) {}

  /** Path of a session's transcript; throws for an id that is not a UUID (no path escape). */
  transcriptPath(workspace: string, sessionId: string): string {
    if (!SESSION_ID_PATTERN.test(sessionId)) throw new Error('invalid session id');
    return join(this.options.dataDir, workspaceKey(workspace), 'chats', `${sessionId}.jsonl`);
  }

  /** True when `workspace` holds a transcript for `sessionId`. */
  async exists(workspace: string, sessionId: string): Promise<boolean> {
    if (!SESSION_ID_PATTERN.test(sessionId)) return false;
    return access(this.transcriptPath(workspace, sessionId)).then(
      () => true,
      () => false,
    );
  }

  /** Starts recording a live session; a resumed one continues from its last record. */
  async attach(sessionId: string, workspace: string): Promise<void> {
    const path = this.transcriptPath(workspace, sessionId);
    const lastUuid = (await this.readChain(path, 1))[0]?.uuid ?? null;
    this.open.set(sessionId, { path, lastUuid, tail: Promise.resolve() });
  }

  /** Path of a live session's transcript, if it is being recorded (so never with recording off). */
  pathOf(sessionId: string): string | undefined {
    return this.options.enabled ? this.open.get(sessionId)?.path : undefined;
  }

  /** Appends one record chained after the previous one; `undefined` when not written. */
  append(sessionId: string, entry: TranscriptEntry, parentUuid?: string | null): Promise<TranscriptRecord | undefined> {
    const transcript = this.open.get(sessionId);
    if (!transcript || !this.options.enabled) return Promise.resolve(undefined);
    const write = transcript.tail.then(async () => {
      const record: TranscriptRecord = {
        uuid: randomUUID(),
        parentUuid: parentUuid === undefined ? transcript.lastUuid : parentUuid,
        sessionId,
        timestamp: new Date(this.clock.now()).toISOString(),
        ...entry,
      };
      try {
        await mkdir(join(transcript.path, '..'), { recursive: true });
        await appendFile(transcript.path, `${JSON.stringify(record)}\n`);
      } catch (error) {
        this.logger.warn(`append failed for session ${sessionId}: ${(error as Error).name}`);
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

  /** The active chain, oldest first. */
  async activeChain(sessionId: string): Promise<TranscriptRecord[]> {
    const transcript = this.open.get(sessionId);
    if (!transcript) return [];
    await this.flush(sessionId);
    return (await this.readChain(transcript.path, Infinity)).reverse();
  }

  /**
   * Moves the prompt's turn and all after it off the active chain by
   * appending a `system/rewind` record parented before its user record.
   * Returns false when the prompt is not on the active chain.
   */
  async rewind(sessionId: string, promptId: string): Promise<boolean> {
    const chain = await this.activeChain(sessionId);
    const target = chain.find((record) => record.type === 'user' && record.promptId === promptId);
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
   * whose parent was dropped is re-parented to that record's parent.
   */
  async fork(sourceId: string, targetId: string, workspace: string): Promise<void> {
    const chain = await this.activeChain(sourceId);
    const replacement = new Map<string, string | null>();
    const lines: string[] = [];
    for (const record of chain) {
      const parent =
        record.parentUuid !== null && replacement.has(record.parentUuid) ? replacement.get(record.parentUuid)! : record.parentUuid;
      if (isTurnResult(record)) {
        replacement.set(record.uuid, parent);
        continue;
      }
      lines.push(JSON.stringify({ ...record, parentUuid: parent, sessionId: targetId }));
    }
    const path = this.transcriptPath(workspace, targetId);
    if (this.options.enabled && lines.length > 0) {
      await mkdir(join(path, '..'), { recursive: true });
      await writeFile(path, `${lines.join('\n')}\n`, { flag: 'wx' });
    }
    await this.attach(targetId, workspace);
  }

  /** Up to `max` active-chain records, newest first. */
  private async readChain(path: string, max: number): Promise<TranscriptRecord[]> {
    const snapshot = await TranscriptSnapshot.open(path).catch(() => undefined);
    if (!snapshot) return [];
    try {
      const out: TranscriptRecord[] = [];
      const limits = { ...CHAIN_READ, records: Math.min(CHAIN_READ.records, max) };
      for await (const records of activeChainPages(snapshot, limits)) {
        out.push(...records);
        if (out.length >= max) break;
      }
      return out.slice(0, max);
    } finally {
      await snapshot.close();
    }
  }
}
