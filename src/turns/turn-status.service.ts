import { Injectable } from '@nestjs/common';
import { promptNotFound, sessionNotFound } from '../errors/api-errors.js';
import { BridgeOverlayProvider } from './bridge-overlay.provider.js';
import { mergeTurnStatus, newerSettled } from './merge-turn-status.js';
import { TranscriptScanService, type MaybePromise } from './transcript-scan.service.js';
import { collectTurns } from './list/collect-turns.js';
import { pageTurns, type TurnListQuery, type TurnPage } from './list/turn-page.js';
import type { SettledTurnStatus, TurnStatus } from './turn-status.js';

type ScanOutcome<T = SettledTurnStatus | undefined> = { ok: true; record: T } | { ok: false; error: unknown };

/**
 * Answers a poll from its two providers and nothing else: live state
 * wins, then a combined overlay entry, then — after one awaited transcript
 * scan — a fresh re-read of live state and overlay, merged with what the scan
 * found. No I/O of its own; the only write is the in-memory write-back into
 * the bridge's `TerminalOverlay`. Whether the session is live is the caller's
 * check (`ClientIdGuard`); when it left this node during the scan (closed, or
 * lost to another node), an answer that nothing was found is `404
 * session_not_found`, as a poll sent then gets: its sources were let go.
 *
 * @publicApi
 */
@Injectable()
export class TurnStatusService {
  /** Reads in flight by session and prompt: concurrent polls that need the transcript share one. */
  private readonly reads = new Map<string, Promise<TurnStatus>>();

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
    if (!this.bridge.hasSession(sessionId)) throw sessionNotFound(sessionId);
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
   * them — and ten thousand woken waiters cost one transcript read.
   */
  private shared(sessionId: string, promptId: string | undefined, read: () => Promise<TurnStatus>): Promise<TurnStatus> {
    const key = `${sessionId}\u0000${promptId ?? ''}`;
    let pending = this.reads.get(key);
    if (!pending) {
      pending = read();
      this.reads.set(key, pending);
      const forget = () => {
        if (this.reads.get(key) === pending) this.reads.delete(key);
      };
      pending.then(forget, forget);
    }
    return pending;
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
      throw this.unlessLeft(sessionId, scan.error);
    }
    if (!scan.record) {
      if (overlay) return overlay; // not combined: the agent may still settle (deadline path)
      throw this.unlessLeft(sessionId, promptNotFound(sessionId, promptId));
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
      throw this.unlessLeft(sessionId, scan.error);
    }
    const record = scan.record;
    if (!newest) {
      if (!record) {
        if (!this.bridge.hasSession(sessionId)) throw sessionNotFound(sessionId);
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

  /**
   * The error a poll answers when its sources found nothing, unless the session left this node during the scan:
   * its transcript and ledger were let go, so "nothing" is no answer (chaos 6151-5: a poll held across a lost
   * lease answered 404 prompt_not_found for a prompt the ledger had settled).
   */
  private unlessLeft(sessionId: string, error: unknown): unknown {
    return this.bridge.hasSession(sessionId) ? error : sessionNotFound(sessionId);
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

  /** Runs a scan, folding failure into the outcome and replacing a result a rewind made stale by `none`. */
  private async scan<T>(sessionId: string, read: () => MaybePromise<T>, none: T): Promise<ScanOutcome<T>> {
    const generation = this.bridge.overlay.generation(sessionId);
    let outcome: ScanOutcome<T>;
    try {
      outcome = { ok: true, record: await read() };
    } catch (error) {
      outcome = { ok: false, error };
    }
    if (outcome.ok && this.bridge.overlay.generation(sessionId) !== generation) {
      return { ok: true, record: none };
    }
    return outcome;
  }
}
