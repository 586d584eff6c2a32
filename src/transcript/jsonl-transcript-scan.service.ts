import { Inject, Injectable, Optional } from '@nestjs/common';
import { transcriptTooLarge } from '../errors/api-errors.js';
import { TRANSCRIPT_SCAN_LIMITS } from '../turns/rules/limits.js';
import { setActiveSpanAttribute } from '../telemetry/tracing.js';
import { TURNS_CHANNELS } from '../telemetry/turns-channels.js';
import { TranscriptScanService } from '../turns/transcript-scan.service.js';
import type { SettledTurnStatus } from '../turns/turn-status.js';
import { ActiveChain } from './active-chain.js';
import { ChatRecordingService } from './chat-recording.service.js';
import { MissCache } from './miss-cache.js';
import { jsonTextBytes } from './snapshot-line.js';
import { transcriptApiError } from './transcript-errors.js';
import { isTurnResult, TURN_RESULT_SUBTYPE } from './transcript-record.js';
import { sameFile, TranscriptSnapshot, type FileIdentity } from './transcript-snapshot.js';
import { isValidTurnResultPayload, turnStatusFromPayload, type TurnResultPayload } from './turn-result-payload.js';

/**
 * Bounds of one scan (defaults: `TRANSCRIPT_SCAN_LIMITS`).
 *
 * @publicApi
 */
export interface TranscriptScanLimits {
  recordsPerPage: number;
  bytesPerPage: number;
  maxPages: number;
  maxSnapshotBytes: number;
}

export const TRANSCRIPT_SCAN_OPTIONS = Symbol('TRANSCRIPT_SCAN_OPTIONS');

const TURN_RESULT = jsonTextBytes(TURN_RESULT_SUBTYPE);

/** The query key of `findNewestTurnResult` (a promptId is never this). */
const NEWEST = '\u0000newest';

/** Sessions whose last listing is kept. */
const LISTED_SESSIONS = 256;

/**
 * Reference {@link TranscriptScanService}: best-effort flush, a snapshot of the
 * session's JSONL at scan start, then a backward walk of the active chain in at
 * most `maxPages` pages. A result beyond the window is not found, even if it is
 * still in the file.
 *
 * @publicApi
 */
@Injectable()
export class JsonlTranscriptScanService extends TranscriptScanService {
  private readonly misses = new MissCache();
  /** The last listing of each session and the bytes it was read from (bounded, oldest first out). */
  private readonly listed = new Map<string, { identity: FileIdentity; results: SettledTurnStatus[] }>();

  constructor(
    private readonly recorder: ChatRecordingService,
    @Optional() @Inject(TRANSCRIPT_SCAN_OPTIONS) private readonly limits: TranscriptScanLimits = TRANSCRIPT_SCAN_LIMITS,
  ) {
    super();
  }

  findTurnResult(sessionId: string, promptId: string): Promise<SettledTurnStatus | undefined> {
    return this.findOne(sessionId, promptId, jsonTextBytes(promptId), (p) => p.promptId === promptId);
  }

  findNewestTurnResult(sessionId: string): Promise<SettledTurnStatus | undefined> {
    return this.findOne(sessionId, NEWEST, TURN_RESULT, () => true);
  }

  /**
   * Every turn_result of the window, newest first, one per prompt — the same
   * walk as a miss, so the same bound. Kept per session for the bytes it was
   * read from: a list of a session whose file did not change reads nothing.
   */
  override async listRecent(sessionId: string): Promise<SettledTurnStatus[]> {
    const path = this.recorder.pathOf(sessionId);
    if (!path) return [];
    await this.recorder.flush(sessionId).catch(() => undefined);
    const known = this.listed.get(sessionId);
    if (known && sameFile(known.identity, await TranscriptSnapshot.identityOf(path))) return known.results;
    const results: SettledTurnStatus[] = [];
    const seen = new Set<string>();
    const identity = await this.walk(sessionId, path, TURN_RESULT, (payload) => {
      if (!seen.has(payload.promptId)) {
        seen.add(payload.promptId);
        results.push(turnStatusFromPayload(sessionId, payload));
      }
      return false;
    });
    if (identity) this.remember(sessionId, identity, results);
    return results;
  }

  /** The newest turn_result in the window that holds `needle` and whose payload `match`es. */
  private async findOne(
    sessionId: string,
    query: string,
    needle: Buffer,
    match: (payload: TurnResultPayload) => boolean,
  ): Promise<SettledTurnStatus | undefined> {
    const path = this.recorder.pathOf(sessionId);
    if (!path) return undefined;
    await this.recorder.flush(sessionId).catch(() => undefined);
    // A miss on the same bytes is a miss again: answered without reading the file.
    if (this.misses.has(sessionId, query, await TranscriptSnapshot.identityOf(path))) return undefined;
    let hit: TurnResultPayload | undefined;
    const identity = await this.walk(sessionId, path, needle, (payload) => {
      if (!match(payload)) return false;
      hit = payload;
      return true;
    });
    if (!hit && identity) this.misses.add(sessionId, query, identity);
    return hit && turnStatusFromPayload(sessionId, hit);
  }

  /**
   * Walks the active chain of a snapshot back through the window, offering
   * each valid turn_result holding `needle` to `visit` until it returns true;
   * the snapshot's identity, or `undefined` when there is no file.
   */
  private async walk(
    sessionId: string,
    path: string,
    needle: Buffer,
    visit: (payload: TurnResultPayload) => boolean,
  ): Promise<FileIdentity | undefined> {
    let snapshot: TranscriptSnapshot | undefined;
    const started = performance.now();
    const walked = { records: 0 };
    try {
      snapshot = await TranscriptSnapshot.open(path);
      if (!snapshot) return undefined;
      const { recordsPerPage, bytesPerPage, maxPages, maxSnapshotBytes } = this.limits;
      if (snapshot.size > maxSnapshotBytes) throw transcriptTooLarge(sessionId, snapshot.size, maxSnapshotBytes);
      // From the chain's tip as the recorder knows it (cluster mode): a stale owner's line after it is never walked.
      await new ActiveChain(snapshot, this.recorder.chainTipOf(sessionId)).find(
        { records: recordsPerPage, bytes: bytesPerPage },
        maxPages,
        {
          needle,
          accept: (record) => isTurnResult(record) && isValidTurnResultPayload(record.systemPayload) && visit(record.systemPayload),
        },
        walked,
      );
      await snapshot.assertUnchanged();
      return snapshot.identity;
    } catch (error) {
      throw transcriptApiError(sessionId, error, this.limits.bytesPerPage);
    } finally {
      await snapshot?.close();
      if (snapshot) {
        TURNS_CHANNELS.transcriptScan.publish({ durationMs: performance.now() - started, bytesRead: snapshot.bytesRead });
        setActiveSpanAttribute('turns.records_scanned', walked.records);
      }
    }
  }

  private remember(sessionId: string, identity: FileIdentity, results: SettledTurnStatus[]): void {
    this.listed.delete(sessionId);
    this.listed.set(sessionId, { identity, results });
    if (this.listed.size > LISTED_SESSIONS) this.listed.delete(this.listed.keys().next().value as string);
  }
}
