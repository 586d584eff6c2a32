import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { ApiErrors } from '../../common/api-errors.js';
import { BridgeOverlayProvider } from '../bridge-overlay.provider.js';
import { etagMatches, serializeTurnStatus } from '../serialized-turn-status.js';
import { TurnStatusService } from '../turn-status.service.js';
import { isLiveStatus, type TurnStatus } from '../turn-status.js';
import { TURNS_MODULE_OPTIONS, type TurnsModuleOptions } from '../turns.module-definition.js';
import { HeldTurnRequest, type HeldTurnRequestOwner, type WaitSignal } from './held-turn-request.js';
import { TurnWaiters } from './turn-waiters.js';

/** Defaults of the wait bounds. */
export const WAIT_DEFAULTS = { maxWaitMs: 30_000, maxWaiters: 10_000 } as const;

/** What a held request waits for. */
export interface TurnWait {
  sessionId: string;
  /** The prompt, or `undefined` for `current`. */
  promptId?: string;
  waitMs: number;
  /** The client's `If-None-Match`: wait until the answer's ETag differs. */
  ifNoneMatch?: string;
  /** Aborted when the client goes away: the waiter is released at once. An `AbortSignal` will do. */
  signal?: WaitSignal;
}

/**
 * Bounded long-poll over the turn routes. A request is answered at once when
 * its answer is already what it waits for (not live; or, with
 * `If-None-Match`, a different ETag); otherwise it is held until the bridge
 * reports a change that makes it so, or the wait runs out. Every answer —
 * at once, after a wake-up, at the deadline — is computed as a fresh poll by
 * {@link TurnStatusService}, so it is exactly what a poll would see. Wake-ups
 * come from `BridgeOverlayProvider.watch`; no timer runs per waiter.
 *
 * @publicApi
 */
@Injectable()
export class TurnWaitService implements BeforeApplicationShutdown {
  readonly maxWaitMs: number;
  private readonly waiters: TurnWaiters;
  /** What every held request calls back into (one object for all of them). */
  private readonly owner: HeldTurnRequestOwner<TurnWait> = {
    poll: (wait) => this.poll(wait),
    satisfied: (wait, status) => this.satisfied(wait, status),
    release: (request) => this.waiters.remove(request),
  };
  /** Polls in flight by session and prompt: waiters woken together share one. */
  private readonly polls = new Map<string, Promise<TurnStatus>>();

  constructor(
    private readonly turns: TurnStatusService,
    private readonly bridge: BridgeOverlayProvider,
    @Inject(TURNS_MODULE_OPTIONS) options: TurnsModuleOptions,
  ) {
    this.maxWaitMs = options.maxWaitMs ?? WAIT_DEFAULTS.maxWaitMs;
    this.waiters = new TurnWaiters(options.maxWaiters ?? WAIT_DEFAULTS.maxWaiters);
  }

  /** Requests held right now (a metric: it returns to 0 when clients go away). */
  get waiting(): number {
    return this.waiters.count;
  }

  /**
   * A plain poll's answer when memory has it (a `404 session_not_found` is
   * thrown here too), else `undefined`: the caller then awaits {@link answer}.
   * Most polls end here, without a promise.
   */
  peek(sessionId: string, promptId: string | undefined): TurnStatus | undefined {
    if (!this.bridge.hasSession(sessionId)) throw ApiErrors.sessionNotFound(sessionId);
    return this.turns.peek(sessionId, promptId);
  }

  /** The answer of a (possibly held) turn request. */
  async answer(wait: TurnWait): Promise<TurnStatus> {
    const first = await this.poll(wait);
    if (wait.waitMs <= 0 || this.satisfied(wait, first) || wait.signal?.aborted) return first;
    return new Promise<TurnStatus>((resolve, reject) => {
      const request = new HeldTurnRequest(this.owner, wait, Date.now() + wait.waitMs, first, wait.signal, resolve, reject);
      this.waiters.add(request);
      const unwatch = this.bridge.watch(wait.sessionId, request.wake);
      if (!unwatch) {
        // The provider cannot notify: answer as a poll.
        this.waiters.remove(request);
        return resolve(first);
      }
      request.start(unwatch);
    });
  }

  /** Shutdown wakes every held request; each answers at once and none holds the server. */
  beforeApplicationShutdown(): void {
    this.waiters.closeAll();
  }

  /**
   * A fresh poll, exactly as the routes answer it; a session that went away
   * is `404 session_not_found`. Plain polls share too: concurrent polls of a
   * prompt that needs the transcript (a miss, a settled result not in memory)
   * cost one file check between them. Waiters of one prompt woken by the same
   * change share the poll that is in flight: it began after their wake-up and
   * decides from the view after its scan, so it is as fresh for each of them
   * — and ten thousand waiters cost one transcript read, not ten thousand.
   */
  private poll({ sessionId, promptId }: TurnWait): Promise<TurnStatus> {
    if (!this.bridge.hasSession(sessionId)) return Promise.reject(ApiErrors.sessionNotFound(sessionId));
    const known = this.turns.peek(sessionId, promptId);
    if (known) return Promise.resolve(known);
    const key = `${sessionId}\u0000${promptId ?? ''}`;
    let poll = this.polls.get(key);
    if (!poll) {
      poll = promptId === undefined ? this.turns.getCurrent(sessionId) : this.turns.getTurn(sessionId, promptId);
      this.polls.set(key, poll);
      const forget = () => {
        if (this.polls.get(key) === poll) this.polls.delete(key);
      };
      poll.then(forget, forget);
    }
    return poll;
  }

  private satisfied(wait: TurnWait, status: TurnStatus): boolean {
    if (wait.ifNoneMatch) return !etagMatches(wait.ifNoneMatch, serializeTurnStatus(status).etag);
    return !isLiveStatus(status);
  }
}
