import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { lstat } from 'node:fs/promises';
import { ApiException } from '../errors/api-exception.js';
import { Clock } from '../common/clock.js';
import { TURNS_CHANNELS } from '../telemetry/turns-channels.js';
import { ActiveChainReader, type RewindFacts } from './active-chain-reader.js';
import { TranscriptAppender } from './transcript-appender.js';
import { companionPath, isSessionId, transcriptPath } from './transcript-paths.js';
import { FENCE_SUBTYPE, REWIND_SUBTYPE, type TranscriptEntry, type TranscriptRecord } from './transcript-record.js';
import { CHAT_RECORDING_OPTIONS, type ChatRecordingOptions } from './chat-recording-options.js';
import { OpenTranscript } from './open-transcript.js';

export { workspaceKey } from './transcript-paths.js';
export { CHAT_RECORDING_OPTIONS, type ChatRecordingOptions } from './chat-recording-options.js';

/**
 * Records live sessions' JSONL transcripts: one serialized append at a time
 * through each session's {@link TranscriptAppender}, best effort (a failed
 * append is logged without its content and reported as `undefined`, never
 * thrown into the prompt's lifecycle); rewind and fork through the
 * {@link ActiveChainReader}.
 */
@Injectable()
export class ChatRecordingService implements OnApplicationShutdown {
  private readonly logger = new Logger('ChatRecordingService');
  private readonly open = new Map<string, OpenTranscript>();
  private readonly chains: ActiveChainReader;
  private closed = false;

  constructor(
    @Inject(CHAT_RECORDING_OPTIONS) private readonly options: ChatRecordingOptions,
    private readonly clock: Clock,
  ) {
    this.chains = new ActiveChainReader(options.maxTranscriptBytes);
  }

  /** Path of a session's transcript; throws for an id that is not a UUID (no path escape). */
  transcriptPath(workspace: string, sessionId: string): string {
    return transcriptPath(this.options.dataDir, workspace, sessionId);
  }

  /** True when `workspace` holds a transcript (of any kind) for `sessionId`. */
  async exists(workspace: string, sessionId: string): Promise<boolean> {
    if (!isSessionId(sessionId)) return false;
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
    const lastUuid = await this.chains.head(sessionId, path).catch((error: unknown) => {
      // Recording is best effort: an unreadable data dir starts a fresh chain.
      if (error instanceof ApiException && error.code === 'transcript_snapshot_unavailable') {
        this.logger.warn(`transcript of session ${sessionId} is unreadable; recording starts a new chain`);
        return null;
      }
      throw error;
    });
    const previous = this.open.get(sessionId);
    previous?.closeWhenWritten();
    this.open.set(sessionId, new OpenTranscript(new TranscriptAppender(path), lastUuid ?? null));
    const fence = this.options.fenceOf?.(sessionId);
    // Cluster mode: the claim's marker, before anything of this owner is read, so a stale owner's later line is passed over.
    if (fence !== undefined) await this.append(sessionId, { type: 'system', subtype: FENCE_SUBTYPE, systemPayload: { fence } });
  }

  /** Path of a live session's transcript, if it is being recorded (so never with recording off). */
  pathOf(sessionId: string): string | undefined {
    return this.options.enabled ? this.open.get(sessionId)?.appender.path : undefined;
  }

  /** The uuid of the last record appended to a live session's transcript (what a new record would chain after). */
  lastUuidOf(sessionId: string): string | undefined {
    return this.open.get(sessionId)?.lastUuid ?? undefined;
  }

  /**
   * Where a live session's chain ends, for its walks, in cluster mode: the
   * last record this process wrote or chained after, so a stale owner's line
   * appended later is never walked. `undefined` otherwise (the walk starts
   * at the last record that parses, as a single daemon is the only writer).
   */
  chainTipOf(sessionId: string): string | undefined {
    const transcript = this.open.get(sessionId);
    return transcript && this.tipOf(sessionId, transcript);
  }

  private tipOf(sessionId: string, transcript: OpenTranscript): string | undefined {
    return this.options.fenceOf?.(sessionId) === undefined ? undefined : (transcript.lastUuid ?? undefined);
  }

  /**
   * A file beside a live session's transcript (`<sessionId><suffix>`), for
   * what lives with the session (its webhook subscriptions); with recording
   * off too.
   */
  companionPath(sessionId: string, suffix: string): string | undefined {
    const transcript = this.open.get(sessionId);
    return transcript && companionPath(transcript.appender.path, suffix);
  }

  /** Appends one record chained after the previous one; `undefined` when not written. */
  append(sessionId: string, entry: TranscriptEntry, parentUuid?: string | null): Promise<TranscriptRecord | undefined> {
    const transcript = this.open.get(sessionId);
    if (!transcript || !this.options.enabled || this.closed) return Promise.resolve(undefined);
    return transcript.queue(async () => {
      if (this.closed || this.open.get(sessionId) !== transcript) return undefined;
      try {
        // Fence check → append: a stale owner's line that still lands after a newer claim's marker is passed over by readers.
        if ((await (this.options.mayWrite?.(sessionId) ?? true)) === false) return undefined;
        const fence = this.options.fenceOf?.(sessionId);
        const record: TranscriptRecord = {
          uuid: randomUUID(),
          parentUuid: parentUuid === undefined ? transcript.lastUuid : parentUuid,
          sessionId,
          timestamp: new Date(this.clock.now()).toISOString(),
          ...entry,
          ...(fence !== undefined && { fence }),
        };
        // false: a detach, abandon or closeAll closed the transcript while this write waited.
        if (!(await transcript.appender.append(JSON.stringify(record)))) return undefined;
        transcript.lastUuid = record.uuid;
        return record;
      } catch (error) {
        TURNS_CHANNELS.recorderAppendFailed.publish({ sessionId });
        const code = (error as NodeJS.ErrnoException).code;
        this.logger.warn(`append failed for session ${sessionId}: ${(error as Error).name}${code ? ` ${code}` : ''}`);
        return undefined;
      }
    });
  }

  /** Resolves once every append issued so far has been written (or failed). */
  async flush(sessionId: string): Promise<void> {
    await this.open.get(sessionId)?.tail;
  }

  /** Stops recording after the appends issued so far are written, and closes the transcript. */
  async detach(sessionId: string): Promise<void> {
    const transcript = this.open.get(sessionId);
    if (!transcript) return;
    await transcript.tail;
    if (this.open.get(sessionId) === transcript) this.open.delete(sessionId);
    await transcript.appender.close();
  }

  /** Stops recording at once: appends not yet written are dropped (the session is no longer this node's). */
  abandon(sessionId: string): void {
    const transcript = this.open.get(sessionId);
    if (!transcript) return;
    this.open.delete(sessionId);
    // The write under way, if any, finishes first; every later one sees the session gone.
    transcript.closeWhenWritten();
  }

  /**
   * Moves the prompt's turn and all after it off the active chain by
   * appending a `system/rewind` record parented before its user record.
   * Returns false when the prompt is not on the active chain.
   */
  async rewind(sessionId: string, promptId: string): Promise<boolean> {
    const transcript = this.open.get(sessionId);
    if (!transcript) return false;
    await this.flush(sessionId);
    const target = await this.chains.userRecordOf(sessionId, transcript.appender.path, promptId, this.tipOf(sessionId, transcript));
    if (!target) return false;
    const record = await this.append(
      sessionId,
      { type: 'system', subtype: REWIND_SUBTYPE, systemPayload: { promptId } },
      target.parentUuid,
    );
    return record !== undefined;
  }

  /** The prompts on the session's active chain, oldest first (none without a transcript). */
  async activePrompts(sessionId: string): Promise<Array<{ promptId: string; timestamp: string }>> {
    const transcript = this.open.get(sessionId);
    if (!transcript) return [];
    await this.flush(sessionId);
    return (await this.chains.userPrompts(sessionId, transcript.appender.path, this.tipOf(sessionId, transcript))) ?? [];
  }

  /** What the live session's active chain says of `uuids` and of rewinds (see {@link ActiveChainReader.rewindFacts}); none without a transcript. */
  async rewindFacts(sessionId: string, uuids: ReadonlySet<string>): Promise<RewindFacts | undefined> {
    const transcript = this.open.get(sessionId);
    if (!transcript) return undefined;
    await this.flush(sessionId);
    return this.chains.rewindFacts(sessionId, transcript.appender.path, uuids, this.tipOf(sessionId, transcript));
  }

  /** Writes a new session's transcript from the source's active chain (see {@link ActiveChainReader.copy}), and records it. */
  async fork(sourceId: string, targetId: string, workspace: string): Promise<void> {
    const source = this.open.get(sourceId);
    if (source && this.options.enabled) {
      await this.flush(sourceId);
      await this.chains.copy(
        sourceId,
        source.appender.path,
        this.transcriptPath(workspace, targetId),
        targetId,
        this.tipOf(sourceId, source),
      );
    }
    await this.attach(targetId, workspace);
  }

  /** Stops recording: later appends write nothing, and every pending one is flushed. */
  async onApplicationShutdown(): Promise<void> {
    await this.closeAll();
  }

  /** Flushes every open transcript, closes them, and refuses further appends. */
  async closeAll(): Promise<void> {
    const transcripts = [...this.open.values()];
    await Promise.all(transcripts.map((t) => t.tail));
    this.closed = true;
    this.open.clear();
    await Promise.all(transcripts.map((t) => t.appender.close()));
  }
}
