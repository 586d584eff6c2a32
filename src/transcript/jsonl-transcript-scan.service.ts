import { Inject, Injectable, Optional } from '@nestjs/common';
import { TRANSCRIPT_SCAN_LIMITS } from '../common/limits.js';
import { TranscriptScanService } from '../turns/transcript-scan.service.js';
import type { SettledTurnStatus } from '../turns/turn-status.js';
import { findOnActiveChain, InvalidCursorError } from './active-chain-pager.js';
import { ChatRecordingService } from './chat-recording.service.js';
import { ApiErrors } from '../common/api-errors.js';
import { setActiveSpanAttribute } from '../telemetry/tracing.js';
import { TURNS_CHANNELS } from '../telemetry/turns-channels.js';
import { MissCache } from './miss-cache.js';
import { isTurnResult, TURN_RESULT_SUBTYPE } from './transcript-record.js';
import type { SnapshotLine } from './snapshot-line.js';
import { LineTooLargeError, NotRegularFileError, SnapshotChangedError, TranscriptSnapshot } from './transcript-snapshot.js';
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

const TURN_RESULT = Buffer.from(TURN_RESULT_SUBTYPE);

/**
 * A cheap test before a parse: a record of our layout whose top-level type is
 * not `system` is never a turn_result, so its (often long) text is not searched.
 */
function mayBeTurnResult(line: SnapshotLine): boolean {
  const type = line.headType();
  return (type === undefined || type === 'system') && line.includes(TURN_RESULT);
}

/** What one scan looks for: a cheap line test, bytes every hit contains, and the rule on the payload. */
interface TurnResultSearch {
  candidate: (line: SnapshotLine) => boolean;
  required: Buffer;
  match: (payload: TurnResultPayload) => boolean;
}

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
    // The promptId as it stands inside a JSON string: lines without it are never parsed.
    const needle = Buffer.from(JSON.stringify(promptId).slice(1, -1));
    return this.scan(sessionId, promptId, {
      candidate: (line) => mayBeTurnResult(line) && line.includes(needle),
      required: needle,
      match: (p) => p.promptId === promptId,
    });
  }

  findNewestTurnResult(sessionId: string): Promise<SettledTurnStatus | undefined> {
    return this.scan(sessionId, NEWEST, { candidate: mayBeTurnResult, required: TURN_RESULT, match: () => true });
  }

  private async scan(sessionId: string, query: string, search: TurnResultSearch): Promise<SettledTurnStatus | undefined> {
    const path = this.recorder.pathOf(sessionId);
    if (!path) return undefined;
    await this.recorder.flush(sessionId).catch(() => undefined);
    if (this.misses.has(sessionId, query, await TranscriptSnapshot.identityOf(path))) return undefined;
    let snapshot: TranscriptSnapshot | undefined;
    const started = performance.now();
    const walked = { records: 0 };
    try {
      snapshot = await TranscriptSnapshot.open(path);
      if (!snapshot) return undefined;
      if (snapshot.size > this.limits.maxSnapshotBytes) {
        throw ApiErrors.transcriptTooLarge(sessionId, snapshot.size, this.limits.maxSnapshotBytes);
      }
      const found = await this.walk(snapshot, search, walked);
      await snapshot.assertUnchanged();
      if (!found) this.misses.add(sessionId, query, snapshot.identity);
      return found && turnStatusFromPayload(sessionId, found);
    } catch (error) {
      throw this.structured(sessionId, error);
    } finally {
      await snapshot?.close();
      if (snapshot) {
        TURNS_CHANNELS.transcriptScan.publish({ durationMs: performance.now() - started, bytesRead: snapshot.bytesRead });
        setActiveSpanAttribute('turns.records_scanned', walked.records);
      }
    }
  }

  private async walk(
    snapshot: TranscriptSnapshot,
    { candidate, required, match }: TurnResultSearch,
    walked: { records: number },
  ): Promise<TurnResultPayload | undefined> {
    const hit = await findOnActiveChain(
      snapshot,
      { records: this.limits.recordsPerPage, bytes: this.limits.bytesPerPage },
      this.limits.maxPages,
      {
        candidate,
        required,
        accept: (record) => isTurnResult(record) && isValidTurnResultPayload(record.systemPayload) && match(record.systemPayload),
      },
      walked,
    );
    return hit?.systemPayload as TurnResultPayload | undefined;
  }

  private structured(sessionId: string, error: unknown): unknown {
    if (error instanceof LineTooLargeError) return ApiErrors.transcriptPageTooLarge(sessionId, error.bytes, this.limits.bytesPerPage);
    if (error instanceof InvalidCursorError) return ApiErrors.transcriptCursorInvalid(sessionId);
    if (error instanceof SnapshotChangedError) return ApiErrors.transcriptSnapshotUnavailable(sessionId);
    if (error instanceof NotRegularFileError) return ApiErrors.transcriptUnavailable(sessionId);
    return error;
  }
}
