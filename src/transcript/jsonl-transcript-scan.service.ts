import { Inject, Injectable, Optional } from '@nestjs/common';
import { transcriptTooLarge } from '../common/api-errors.js';
import { TRANSCRIPT_SCAN_LIMITS } from '../common/limits.js';
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
import { TranscriptSnapshot } from './transcript-snapshot.js';
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

  constructor(
    private readonly recorder: ChatRecordingService,
    @Optional() @Inject(TRANSCRIPT_SCAN_OPTIONS) private readonly limits: TranscriptScanLimits = TRANSCRIPT_SCAN_LIMITS,
  ) {
    super();
  }

  findTurnResult(sessionId: string, promptId: string): Promise<SettledTurnStatus | undefined> {
    return this.scan(sessionId, promptId, jsonTextBytes(promptId), (p) => p.promptId === promptId);
  }

  findNewestTurnResult(sessionId: string): Promise<SettledTurnStatus | undefined> {
    return this.scan(sessionId, NEWEST, TURN_RESULT, () => true);
  }

  /** The newest turn_result in the window that holds `needle` and whose payload `match`es. */
  private async scan(
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
    let snapshot: TranscriptSnapshot | undefined;
    const started = performance.now();
    const walked = { records: 0 };
    try {
      snapshot = await TranscriptSnapshot.open(path);
      if (!snapshot) return undefined;
      const { recordsPerPage, bytesPerPage, maxPages, maxSnapshotBytes } = this.limits;
      if (snapshot.size > maxSnapshotBytes) throw transcriptTooLarge(sessionId, snapshot.size, maxSnapshotBytes);
      const hit = await new ActiveChain(snapshot).find(
        { records: recordsPerPage, bytes: bytesPerPage },
        maxPages,
        {
          needle,
          accept: (record) => isTurnResult(record) && isValidTurnResultPayload(record.systemPayload) && match(record.systemPayload),
        },
        walked,
      );
      await snapshot.assertUnchanged();
      if (!hit) this.misses.add(sessionId, query, snapshot.identity);
      return hit && isValidTurnResultPayload(hit.systemPayload) ? turnStatusFromPayload(sessionId, hit.systemPayload) : undefined;
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
}
