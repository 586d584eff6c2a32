import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { SessionClientLookup } from '../../client-id/session-client-lookup.js';
import { sessionNotFound, shuttingDown, tooManyWaiters } from '../../errors/api-errors.js';
import { BridgeOverlayProvider } from '../bridge-overlay.provider.js';
import { etagMatches, serializeTurnStatus } from '../serialized-turn-status.js';
import { TurnStatusService } from '../turn-status.service.js';
import { isLiveStatus, type TurnStatus } from '../turn-status.js';
import { TURNS_MODULE_OPTIONS, type TurnsModuleOptions } from '../turns.module-definition.js';
import type { WaitSignal } from './client-gone.js';
import { WAIT_DEFAULTS } from './wait.settings.js';

/** What a held turn request waits for. */
export interface TurnWaitRequest {
  sessionId: string;
  /** The prompt, or `undefined` for `current`. */
  promptId?: string;
  waitMs: number;
  /** The client's `If-None-Match`: wait until the answer's ETag differs. */
  ifNoneMatch?: string;
  /** Woken by a running turn's `activity` too (it changes the ETag at most once a second); else only by transitions. */
  activity?: boolean;
  /** The reader's client id: the ETag it holds is of its own view of the status. */
  clientId?: string;
  /** Aborted when the client goes away: the request is released at once. An `AbortSignal` will do. */
  signal?: WaitSignal;
}

/**
 * Bounded long-poll over the turn routes: a request is held until a change from `BridgeOverlayProvider.watch` makes
 * its answer what it waits for, each answer a fresh poll (docs/waiting.md).
 *
 * @publicApi
 */
@Injectable()
export class TurnWaitService implements BeforeApplicationShutdown {
  readonly maxWaitMs: number;
  private readonly maxWaiters: number;
  /** Each held request's "answer now with a fresh poll" (its deadline, or shutdown). */
  private readonly held = new Set<() => void>();
  private closed = false;

  constructor(
    private readonly turns: TurnStatusService,
    private readonly bridge: BridgeOverlayProvider,
    private readonly sessions: SessionClientLookup,
    @Inject(TURNS_MODULE_OPTIONS) options: TurnsModuleOptions,
  ) {
    this.maxWaitMs = options.maxWaitMs ?? WAIT_DEFAULTS.maxWaitMs;
    this.maxWaiters = options.maxWaiters ?? WAIT_DEFAULTS.maxWaiters;
  }

  /** Requests held right now (a metric: it returns to 0 when clients go away). */
  get waiting(): number {
    return this.held.size;
  }

  /**
   * The answer of a turn request that asked to wait, given its first answer:
   * that one when it is already what the request waits for, else the first
   * fresh poll that is, or the one at the deadline. At most `maxWaiters` are
   * held at once (more → `503 too_many_waiters`). One fresh poll runs at a
   * time; a wake-up during it polls once more after.
   */
  async wait(request: TurnWaitRequest, first: TurnStatus): Promise<TurnStatus> {
    const { signal } = request;
    if (this.satisfied(request, first) || signal?.aborted) return first;
    if (this.closed) throw shuttingDown();
    if (this.held.size >= this.maxWaiters) throw tooManyWaiters(this.maxWaiters);
    return new Promise<TurnStatus>((resolve, reject) => {
      let latest = first;
      let settled = false;
      let polling = false;
      let again = false;
      let unwatchActivity: (() => void) | undefined;
      const finish = (status: TurnStatus | undefined, error?: unknown): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        unwatch?.();
        unwatchActivity?.();
        signal?.removeEventListener('abort', abandon);
        this.held.delete(expire);
        if (status) resolve(status);
        else reject(error);
      };
      const repoll = (final: boolean): void => {
        if (settled) return;
        if (polling) {
          again = true;
          return;
        }
        polling = true;
        this.poll(request).then(
          (status) => {
            polling = false;
            latest = status;
            if (final || this.satisfied(request, status)) return finish(status);
            if (again) {
              again = false;
              repoll(false);
            }
          },
          (error: unknown) => finish(undefined, error),
        );
      };
      const expire = (): void => repoll(true);
      // The client went away: answer (nobody reads it) and release at once.
      const abandon = (): void => finish(latest);

      const timer = setTimeout(expire, request.waitMs);
      this.held.add(expire);
      const unwatch = this.bridge.watch(request.sessionId, () => repoll(false));
      // The provider cannot notify: answer as a poll.
      if (!unwatch) return finish(first);
      if (request.activity) unwatchActivity = this.bridge.watchActivity(request.sessionId, () => repoll(false));
      signal?.addEventListener('abort', abandon);
      // A change between the first answer and the watch would be missed: look once more.
      repoll(false);
    });
  }

  /** Shutdown answers every held request at once (a fresh poll) and admits no more. */
  beforeApplicationShutdown(): void {
    this.closed = true;
    for (const expire of [...this.held]) expire();
  }

  /** A fresh poll, exactly as the routes answer it; a session that went away during the wait is `404 session_not_found`. */
  private poll({ sessionId, promptId }: TurnWaitRequest): Promise<TurnStatus> {
    if (!this.sessions.hasSession(sessionId)) return Promise.reject(sessionNotFound(sessionId));
    return promptId === undefined ? this.turns.getCurrent(sessionId) : this.turns.getTurn(sessionId, promptId);
  }

  private satisfied(request: TurnWaitRequest, status: TurnStatus): boolean {
    if (request.ifNoneMatch) return !etagMatches(request.ifNoneMatch, serializeTurnStatus(status, request.clientId).etag);
    // A turn that waits on a client's answer goes nowhere until one comes: the waiter is that client (docs/permissions.md).
    return !isLiveStatus(status) || (status.state === 'running' && status.pendingInteractions !== undefined);
  }
}
