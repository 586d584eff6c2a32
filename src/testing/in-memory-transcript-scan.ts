import type { ApiException } from '../errors/api-exception.js';
import { apiError, type ApiErrorCode } from '../errors/api-errors.js';
import { TranscriptScanService } from '../turns/transcript-scan.service.js';
import type { SettledTurnStatus } from '../turns/turn-status.js';

/**
 * A scan the test holds until it calls `release()` (or `fail()`), to order races by hand.
 *
 * @publicApi
 */
export interface HeldScan {
  readonly sessionId: string;
  /** The prompt asked for; `undefined` for a newest-result scan. */
  readonly promptId?: string;
  /** Answers the scan from the records as they are now. */
  release(): void;
  /** Fails the scan with a structured error. */
  fail(error: ApiException | ApiErrorCode): void;
}

/**
 * The persisted side of a runtime, in memory: the test records settled
 * results as the transcript would hold them (no `queuedAt`), and can make
 * scans fail with the structured errors a real transcript raises
 * (`transcript_snapshot_unavailable`, …) or hold them to order races.
 *
 * @publicApi
 */
export class InMemoryTranscriptScan extends TranscriptScanService {
  /** Scans asked for so far (a poll served from memory asks none). */
  scans = 0;
  /** Scans waiting for the test, when `holdScans()` is on (oldest first). */
  readonly held: HeldScan[] = [];
  private readonly records = new Map<string, SettledTurnStatus[]>();
  private readonly failures = new Map<string, ApiException>();
  private holding = false;

  /** Appends a persisted result (its `queuedAt` dropped: a transcript does not keep it). */
  record(status: SettledTurnStatus): this {
    const { queuedAt: _memoryOnly, ...persisted } = status;
    const list = this.records.get(status.sessionId) ?? [];
    list.push(persisted as SettledTurnStatus);
    this.records.set(status.sessionId, list);
    return this;
  }

  /** Every later scan of the session throws this error (a code of the catalogue, or an exception), until `heal()`. */
  failWith(sessionId: string, error: ApiException | ApiErrorCode): this {
    this.failures.set(sessionId, typeof error === 'string' ? apiError(error, { sessionId }) : error);
    return this;
  }

  heal(sessionId: string): this {
    this.failures.delete(sessionId);
    return this;
  }

  /** From now on every scan waits in `held` until the test releases it. */
  holdScans(): this {
    this.holding = true;
    return this;
  }

  /** Scans answer at once again; the held ones are released. */
  releaseScans(): void {
    this.holding = false;
    for (const scan of this.held.splice(0)) scan.release();
  }

  findTurnResult(sessionId: string, promptId: string): Promise<SettledTurnStatus | undefined> {
    return this.scan(sessionId, promptId, () => this.records.get(sessionId)?.findLast((r) => r.promptId === promptId));
  }

  findNewestTurnResult(sessionId: string): Promise<SettledTurnStatus | undefined> {
    return this.scan(sessionId, undefined, () => this.records.get(sessionId)?.at(-1));
  }

  override listRecent(sessionId: string): Promise<SettledTurnStatus[]> {
    return this.scan(sessionId, undefined, () => {
      const seen = new Set<string>();
      // Newest first, one per prompt: its newest record.
      return [...(this.records.get(sessionId) ?? [])].reverse().filter((r) => !seen.has(r.promptId) && seen.add(r.promptId));
    });
  }

  private scan<T>(sessionId: string, promptId: string | undefined, read: () => T): Promise<T> {
    this.scans += 1;
    const answer = () => {
      const failure = this.failures.get(sessionId);
      if (failure) throw failure;
      return read();
    };
    if (!this.holding) return Promise.resolve().then(answer);
    return new Promise<T>((resolve, reject) => {
      this.held.push({
        sessionId,
        promptId,
        release: () => {
          try {
            resolve(answer());
          } catch (error) {
            reject(error);
          }
        },
        fail: (error) => reject(typeof error === 'string' ? apiError(error, { sessionId }) : error),
      });
    });
  }
}
