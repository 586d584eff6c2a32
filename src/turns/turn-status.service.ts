import { Injectable } from '@nestjs/common';
import { promptNotFound, sessionNotFound } from '../errors/api-errors.js';
import { BridgeOverlayProvider } from './bridge-overlay.provider.js';
import { mergeTurnStatus, newerSettled } from './merge-turn-status.js';
import { TranscriptScanService, type MaybePromise } from './transcript-scan.service.js';
import { collectTurns } from './list/collect-turns.js';
import { pageTurns, type TurnListQuery, type TurnPage } from './list/turn-page.js';
import type { SettledTurnStatus, TurnStatus } from './turn-status.js';

/** A scan's result or error, and whether its session left this node meanwhile (its sources let go: "nothing" is no answer). */
type ScanOutcome<T = SettledTurnStatus | undefined> = ({ ok: true; record: T } | { ok: false; error: unknown }) & { left: boolean };

/**
 * Answers a poll from its two ports and nothing else: live state, then the overlay, then one transcript scan merged
 * with a fresh re-read of both (docs/decisions.md#how-a-poll-is-answered).
 *
 * @publicApi
 */
@Injectable()
export class TurnStatusService {
  /** Reads in flight by session and prompt, with the close mark they began at: concurrent polls that need the transcript share one. */
  private readonly reads = new Map<string, { mark: number; answer: Promise<TurnStatus> }>();

  constructor(
    private readonly bridge: BridgeOverlayProvider,
    private readonly transcript: TranscriptScanService,
  ) {}

  /**
   * The answer memory alone gives — live, or settled and already combined
   * with its record — or `undefined` when the transcript must be read.
   */
  peek(sessionId: string, promptId?: string): TurnStatus | undefined {
    return promptId === undefined ? this.currentFromMemory(sessionId) : this.fromMemory(sessionId, promptId);
  }

  /** The status of one prompt; `404 prompt_not_found` when no source has it. */
  async getTurn(sessionId: string, promptId: string): Promise<TurnStatus> {
    return this.fromMemory(sessionId, promptId) ?? this.shared(sessionId, promptId, () => this.readTurn(sessionId, promptId));
  }

  /** The running prompt, else the queued head, else the newest settled one, else `idle`. */
  async getCurrent(sessionId: string): Promise<TurnStatus> {
    return this.currentFromMemory(sessionId) ?? this.shared(sessionId, undefined, () => this.readCurrent(sessionId));
  }

  /**
   * One page of the session's turns, newest first (`GET /session/:id/turns`):
   * each is the status the exact route answers for that prompt now, from the
   * same bounded sources — every live entry, the overlay, the transcript's
   * scan window — merged by the same rules after one awaited scan and a
   * fresh read of memory. A scan error is the route's structured error (a
   * page that silently lacked the transcript's turns would lose them).
   */
  async listTurns(sessionId: string, query: TurnListQuery): Promise<TurnPage> {
    const scan = await this.scan(sessionId, () => this.transcript.listRecent(sessionId), []);
    // A page is of a live session's turns: one that left during the scan may have been read from nothing.
    if (scan.left) throw sessionNotFound(sessionId);
    if (!scan.ok) throw scan.error;
    const { turns, combined } = collectTurns({
      live: this.bridge.listLive(sessionId),
      overlay: this.bridge.overlay.entries(sessionId),
      records: scan.record,
    });
    const page = pageTurns(turns, query);
    // What the exact route would have written back, for the turns shown: their next exact poll is served from memory.
    const shown = new Set(page.turns);
    for (const status of combined) if (shown.has(status)) this.writeBack(sessionId, status, false);
    return page;
  }

  /**
   * Polls of one prompt that arrive while its read is in flight share it: the
   * read decides from the view after its scan, so it is as fresh for each of
   * them — and ten thousand woken waiters cost one transcript read. Not one
   * begun before the session last left this node (it is here again): that
   * one answers for the session as it was.
   */
  private shared(sessionId: string, promptId: string | undefined, read: () => Promise<TurnStatus>): Promise<TurnStatus> {
    const key = `${sessionId}\u0000${promptId ?? ''}`;
    const { overlay } = this.bridge;
    const pending = this.reads.get(key);
    if (pending && !overlay.leftSince(sessionId, pending.mark)) return pending.answer;
    const reading = { mark: overlay.closeMark(), answer: read() };
    this.reads.set(key, reading);
    const forget = () => {
      if (this.reads.get(key) === reading) this.reads.delete(key);
    };
    reading.answer.then(forget, forget);
    return reading.answer;
  }

  private async readTurn(sessionId: string, promptId: string): Promise<TurnStatus> {
    const scan = await this.scan(sessionId, () => this.transcript.findTurnResult(sessionId, promptId), undefined);

    // Decide from a fresh view: the prompt may have started, settled, or been
    // written back by a concurrent poll while the scan was in flight.
    const fresh = this.fromMemory(sessionId, promptId);
    if (fresh) return fresh;
    const overlay = this.bridge.overlay.get(sessionId, promptId)?.status;
    if (!scan.ok) {
      if (overlay) return overlay;
      throw scan.left ? sessionNotFound(sessionId) : scan.error;
    }
    if (!scan.record) {
      if (overlay) return overlay; // not combined: the agent may still settle (deadline path)
      throw scan.left ? sessionNotFound(sessionId) : promptNotFound(sessionId, promptId);
    }
    const answer = overlay ? mergeTurnStatus(overlay, scan.record) : scan.record;
    this.writeBack(sessionId, answer, false);
    return answer;
  }

  private async readCurrent(sessionId: string): Promise<TurnStatus> {
    const scan = await this.scan(sessionId, () => this.transcript.findNewestTurnResult(sessionId), undefined);

    const fresh = this.currentFromMemory(sessionId);
    if (fresh) return fresh;
    const newest = this.bridge.overlay.newest(sessionId)?.status;
    if (!scan.ok) {
      if (newest) return newest;
      throw scan.left ? sessionNotFound(sessionId) : scan.error;
    }
    const record = scan.record;
    if (!newest) {
      if (!record) {
        if (scan.left) throw sessionNotFound(sessionId);
        return { sessionId, state: 'idle' };
      }
      this.writeBack(sessionId, record, true);
      return record;
    }
    if (record && record.promptId === newest.promptId) {
      const merged = mergeTurnStatus(newest, record);
      this.writeBack(sessionId, merged, true);
      return merged;
    }
    const winner = record ? newerSettled(newest, record) : newest;
    // An overlay entry newer than every record never reached the Session (queued
    // removal, close) — final — unless it is a bridge error whose agent may still
    // settle and write one. Only final answers are written back.
    if (winner === record || newest.state !== 'error') this.writeBack(sessionId, winner, true);
    return winner;
  }

  private fromMemory(sessionId: string, promptId: string): TurnStatus | undefined {
    const live = this.bridge.getLive(sessionId, promptId);
    if (live) return live;
    const entry = this.bridge.overlay.get(sessionId, promptId);
    return entry?.combined ? entry.status : undefined;
  }

  private currentFromMemory(sessionId: string): TurnStatus | undefined {
    const live = this.bridge.getLive(sessionId);
    if (live) return live;
    const entry = this.bridge.overlay.newest(sessionId);
    return entry?.combined ? entry.status : undefined;
  }

  /** Keeps an answer the transcript gave, for the next poll; never for a session that closed while it was read. */
  private writeBack(sessionId: string, status: SettledTurnStatus, newest: boolean): void {
    if (this.bridge.hasSession(sessionId)) this.bridge.overlay.writeBack(sessionId, status, newest);
  }

  /**
   * Runs a scan, folding failure into the outcome and replacing a result a rewind made stale by `none`; `left`
   * when the session was closed or lost during it, even if it is back (chaos SEED=6151 schedule 5: a poll held
   * across a lost lease found nothing in the files let go, and answered 404 prompt_not_found).
   */
  private async scan<T>(sessionId: string, read: () => MaybePromise<T>, none: T): Promise<ScanOutcome<T>> {
    const { overlay } = this.bridge;
    const generation = overlay.generation(sessionId);
    const mark = overlay.closeMark();
    let outcome: ScanOutcome<T>;
    try {
      outcome = { ok: true, record: await read(), left: false };
    } catch (error) {
      outcome = { ok: false, error, left: false };
    }
    outcome.left = overlay.leftSince(sessionId, mark) || !this.bridge.hasSession(sessionId);
    if (outcome.ok && overlay.generation(sessionId) !== generation) outcome.record = none;
    return outcome;
  }
}
