import { Logger } from '@nestjs/common';
import type { QueuedPrompt } from '../bridge/prompt-queue.js';
import { QueueBackedOverlay } from '../bridge/queue-backed-overlay.js';
import { SessionQueueCore } from '../bridge/session-queue-core.js';
import type { CountedUpdate } from '../bridge/turn-activity.js';
import type { TerminalFields } from '../bridge/turn-status-projection.js';
import { DEADLINE_EXCEEDED, SESSION_CLOSED } from '../bridge/bridge-errors.js';
import type { TurnError } from '../turns/rules/normalize-turn-error.js';
import type { PendingInteraction, SettledTurnStatus } from '../turns/turn-status.js';
import type { PermissionOutcome } from '../wire/session-event.js';
import { InMemoryPermissionRequests, type InMemoryPermissionRequest } from './in-memory-permission-requests.js';

/** @publicApi */
export interface InMemoryBridgeOverlayOptions {
  /** Terminal statuses kept per session, as the reference bridge does. @default 64 */
  overlaySize?: number;
  /** The clock of `queuedAt`, `startedAt` and `endedAt` (epoch ms). @default Date.now */
  now?: () => number;
  /** Least time between two changes of a running turn's `activity`. @default 1000 */
  activityRefreshMs?: number;
}

/**
 * The live side of a runtime in memory, driven by the test step by step (docs/testing.md), over the reference bridge's
 * own queue core and permission broker (docs/decisions.md#the-testing-kit-drives-the-daemons-own-rules).
 *
 * @publicApi
 */
export class InMemoryBridgeOverlay extends QueueBackedOverlay {
  protected readonly core: SessionQueueCore;
  private readonly sessions = new Map<string, Set<string>>();
  /** The principal each session belongs to, for a host's `principal` option (see `isSessionOf`). */
  private readonly owners = new Map<string, string>();
  private readonly now: () => number;
  private readonly permissions: InMemoryPermissionRequests;
  private nextPrompt = 1;

  constructor(options: InMemoryBridgeOverlayOptions = {}) {
    super();
    this.now = options.now ?? Date.now;
    const { overlaySize, activityRefreshMs } = options;
    this.core = new SessionQueueCore({
      now: this.now,
      overlaySize,
      activityRefreshMs,
      logger: new Logger('InMemoryBridgeOverlay'),
      observers: [this.hookObserver],
      interactions: this.hookedInteractions,
    });
    this.permissions = new InMemoryPermissionRequests({ hasSession: (sessionId) => this.sessions.has(sessionId) }, this.now);
    this.use(this.permissions.broker);
  }

  /**
   * Makes a session live, with the client ids registered on it and the
   * principal it belongs to (asked when `TurnsModule`'s `principal` option is set).
   */
  addSession(sessionId: string, options: { clientIds?: string[]; owner?: string } = {}): this {
    if (this.sessions.has(sessionId)) throw new Error(`session ${sessionId} is live already`);
    this.sessions.set(sessionId, new Set(options.clientIds));
    if (options.owner !== undefined) this.owners.set(sessionId, options.owner);
    this.core.queue(sessionId);
    return this;
  }

  /** Registers one more client id on a live session. */
  registerClient(sessionId: string, clientId: string): this {
    this.clients(sessionId).add(clientId);
    return this;
  }

  /** Admits a prompt at the end of the FIFO (`queued`); returns its promptId (`p1`, `p2`, … unless given). */
  admit(sessionId: string, text: string, options: { promptId?: string; originatorClientId?: string } = {}): string {
    this.clients(sessionId);
    const promptId = options.promptId ?? `p${this.nextPrompt++}`;
    if (this.core.queue(sessionId).find(promptId) || this.overlay.get(sessionId, promptId)) {
      throw new Error(`prompt ${promptId} was admitted already`);
    }
    const { originatorClientId } = options;
    this.core.admit(sessionId, { promptId, promptText: text, queuedAt: this.now(), originatorClientId, published: false });
    return promptId;
  }

  /** Dispatches the FIFO head (`running`); returns its promptId. */
  start(sessionId: string): string {
    this.clients(sessionId);
    const queue = this.core.queue(sessionId);
    if (queue.running) throw new Error(`prompt ${queue.running.promptId} is running already`);
    const started = this.core.dispatch(sessionId);
    if (!started) throw new Error(`session ${sessionId} has no queued prompt`);
    return started.promptId;
  }

  /**
   * The running prompt's agent sent an update (`{ kind: 'tool_call', title }`
   * for a tool call): counted into its `activity`, which polls see at most
   * once per `activityRefreshMs` of the clock; when it changes, only the
   * requests that asked for activity are woken.
   */
  agentUpdate(sessionId: string, update: CountedUpdate = { kind: 'message' }): void {
    this.clients(sessionId);
    const running = this.core.queue(sessionId).running;
    if (!running) throw new Error(`session ${sessionId} has no running prompt`);
    this.core.counted(sessionId, running, update);
  }

  /**
   * The running prompt's agent asks approval for a tool call (docs/permissions.md):
   * polls of the running turn show it in `pendingInteractions` (a new ETag;
   * held requests wake) until `answerPermission` or the prompt's end.
   * `answered` settles with the first answer, or `cancelled` when the prompt
   * ends first, as the runtime answers its agent.
   */
  askPermission(
    sessionId: string,
    action: PendingInteraction['action'] = { title: 'Run a tool' },
    request: InMemoryPermissionRequest = {},
  ): { requestId: string; answered: Promise<PermissionOutcome> } {
    this.clients(sessionId);
    const running = this.core.queue(sessionId).running;
    if (!running) throw new Error(`session ${sessionId} has no running prompt`);
    const { promptId, originatorClientId } = running;
    return this.permissions.ask({ sessionId, promptId, ...(originatorClientId !== undefined && { originatorClientId }) }, action, request);
  }

  /**
   * Answers a pending request of the session; the first answer wins: false
   * when it is not pending (answered already, or its prompt ended). Throws
   * for an option the request did not offer.
   */
  answerPermission(sessionId: string, requestId: string, outcome: PermissionOutcome): boolean {
    return this.permissions.answer(sessionId, requestId, outcome);
  }

  /** Settles the running prompt (or `promptId`) as `completed`. */
  complete(sessionId: string, result: { resultText?: string; stopReason?: string; promptId?: string } = {}): SettledTurnStatus {
    return this.settle(sessionId, result.promptId, {
      state: 'completed',
      stopReason: result.stopReason ?? 'end_turn',
      resultText: result.resultText,
    });
  }

  /** Settles the running prompt (or `promptId`) as `cancelled` (the agent stopped on a cancel). */
  cancel(sessionId: string, promptId?: string): SettledTurnStatus {
    return this.settle(sessionId, promptId, { state: 'cancelled', stopReason: 'cancelled' });
  }

  /** Settles the running prompt (or `promptId`) as `error`. */
  fail(sessionId: string, error: TurnError, promptId?: string): SettledTurnStatus {
    return this.settle(sessionId, promptId, { state: 'error', error });
  }

  /** Removes a queued prompt: `cancelled` at once, without `startedAt`, known to memory only. */
  remove(sessionId: string, promptId: string): SettledTurnStatus {
    this.clients(sessionId);
    if (this.core.queue(sessionId).running?.promptId === promptId) throw new Error(`prompt ${promptId} is running: cancel() it instead`);
    return this.settle(sessionId, promptId, { state: 'cancelled' });
  }

  /** The prompt's deadline passed: `error` with code `prompt_deadline_exceeded`, and the FIFO moves on. */
  expire(sessionId: string, promptId: string): SettledTurnStatus {
    return this.settle(sessionId, promptId, { state: 'error', error: DEADLINE_EXCEEDED });
  }

  /**
   * A successful rewind, as the reference bridge does it: refused while a
   * prompt is queued or running; the overlay is cleared and scans begun
   * before it are stale.
   */
  rewind(sessionId: string): void {
    this.clients(sessionId);
    if (!this.core.beginRewind(sessionId)) throw new Error(`session ${sessionId} has a pending prompt: a rewind waits it out`);
    this.core.endRewind(sessionId, true);
  }

  /** Closes the session: every queued or running prompt ends `error session_closed`, then the session is gone. */
  closeSession(sessionId: string): void {
    this.clients(sessionId);
    // Not live first: a watcher woken by the close sees the session gone.
    this.sessions.delete(sessionId);
    // Each pending prompt settles, and the broker answers its requests `cancelled`.
    this.core.close(sessionId, { state: 'error', error: SESSION_CLOSED, endedAt: this.now() });
  }

  /** Watchers of the session: one per held turn request (`waitMs`) while it waits. */
  watching(sessionId: string): number {
    return this.core.watcherCount(sessionId);
  }

  // The port (BridgeOverlayProvider), read from the core: synchronous, no I/O, never throws for an unknown session.

  hasSession(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  isClientRegistered(sessionId: string, clientId: string): boolean {
    return this.sessions.get(sessionId)?.has(clientId) ?? false;
  }

  /** A live session is the principal's its `addSession` named (one named none is a request's with none). */
  override isSessionOf(sessionId: string, principal: string | undefined): boolean {
    return this.sessions.has(sessionId) && this.owners.get(sessionId) === principal;
  }

  // An unknown (or closed) session is never woken: a held request on it is answered at once.
  protected override watchable(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  /** Publishes a terminal, first writer wins: a prompt that has one keeps it. */
  private settle(sessionId: string, promptId: string | undefined, terminal: Omit<TerminalFields, 'endedAt'>): SettledTurnStatus {
    this.clients(sessionId);
    const queue = this.core.queue(sessionId);
    const id = promptId ?? queue.running?.promptId;
    if (id === undefined) throw new Error(`session ${sessionId} has no running prompt`);
    const published = this.overlay.get(sessionId, id);
    if (published) return published.status;
    const entry: QueuedPrompt | undefined = queue.find(id);
    if (!entry) throw new Error(`prompt ${id} was never admitted to session ${sessionId}`);
    this.core.settle(sessionId, entry, { ...terminal, endedAt: this.now() });
    this.core.release(sessionId, entry);
    return this.overlay.get(sessionId, id)!.status;
  }

  private clients(sessionId: string): Set<string> {
    const clients = this.sessions.get(sessionId);
    if (!clients) throw new Error(`session ${sessionId} is not live: addSession() it first`);
    return clients;
  }
}
