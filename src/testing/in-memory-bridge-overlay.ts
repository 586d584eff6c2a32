import { TerminalOverlay } from '../bridge/terminal-overlay.js';
import { liveStatus, settledStatus, type AdmittedPromptView, type TerminalFields } from '../bridge/turn-status-projection.js';
import { ACTIVITY_REFRESH_MS, TurnActivityCounter, type CountedUpdate } from '../bridge/turn-activity.js';
import { TERMINAL_OVERLAY_SIZE } from '../turns/rules/limits.js';
import type { TurnError } from '../turns/rules/normalize-turn-error.js';
import { BridgeOverlayProvider, type OverlayEntry } from '../turns/bridge-overlay.provider.js';
import type { LiveTurnStatus, SettledTurnStatus } from '../turns/turn-status.js';

/** @publicApi */
export interface InMemoryBridgeOverlayOptions {
  /** Terminal statuses kept per session, as the reference bridge does. @default 64 */
  overlaySize?: number;
  /** The clock of `queuedAt`, `startedAt` and `endedAt` (epoch ms). @default Date.now */
  now?: () => number;
  /** Least time between two changes of a running turn's `activity`. @default 1000 */
  activityRefreshMs?: number;
}

interface SessionState {
  clients: Set<string>;
  /** Admitted prompts in FIFO order; the running one (if any) first. */
  queue: AdmittedPromptView[];
  overlay: TerminalOverlay;
  generation: number;
  listeners: Set<() => void>;
  activityListeners: Set<() => void>;
  /** The running prompt's update counter. */
  counters: Map<string, TurnActivityCounter>;
}

/**
 * The live side of a runtime, in memory, driven by the test step by step:
 * sessions and their client ids, admission, dispatch, settlement, removal
 * of a queued prompt, deadlines, rewinds and close. Each step notifies the
 * watchers (so held requests, `waitMs`, wake up) and follows the reference
 * bridge's rules: one running prompt per session, first terminal wins, a
 * bounded overlay of terminal statuses.
 *
 * ```ts
 * const bridge = new InMemoryBridgeOverlay().addSession('s1', { clientIds: ['c1'] });
 * const promptId = bridge.admit('s1', 'hello');   // queued
 * bridge.start('s1');                             // running
 * bridge.complete('s1', { resultText: 'hi' });    // completed
 * ```
 *
 * @publicApi
 */
export class InMemoryBridgeOverlay extends BridgeOverlayProvider {
  private readonly sessions = new Map<string, SessionState>();
  private readonly overlaySize: number;
  private readonly now: () => number;
  private readonly activityRefreshMs: number;
  private nextPrompt = 1;

  constructor(options: InMemoryBridgeOverlayOptions = {}) {
    super();
    this.overlaySize = options.overlaySize ?? TERMINAL_OVERLAY_SIZE;
    this.now = options.now ?? Date.now;
    this.activityRefreshMs = options.activityRefreshMs ?? ACTIVITY_REFRESH_MS;
  }

  /** Makes a session live, with the client ids registered on it. */
  addSession(sessionId: string, options: { clientIds?: string[] } = {}): this {
    if (this.sessions.has(sessionId)) throw new Error(`session ${sessionId} is live already`);
    this.sessions.set(sessionId, {
      clients: new Set(options.clientIds),
      queue: [],
      overlay: new TerminalOverlay(this.overlaySize),
      generation: 0,
      listeners: new Set(),
      activityListeners: new Set(),
      counters: new Map(),
    });
    return this;
  }

  /** Registers one more client id on a live session. */
  registerClient(sessionId: string, clientId: string): this {
    this.session(sessionId).clients.add(clientId);
    return this;
  }

  /** Admits a prompt at the end of the FIFO (`queued`); returns its promptId (`p1`, `p2`, … unless given). */
  admit(sessionId: string, text: string, options: { promptId?: string; originatorClientId?: string } = {}): string {
    const session = this.session(sessionId);
    const promptId = options.promptId ?? `p${this.nextPrompt++}`;
    if (session.queue.some((p) => p.promptId === promptId) || session.overlay.get(promptId)) {
      throw new Error(`prompt ${promptId} was admitted already`);
    }
    session.queue.push({ promptId, promptText: text, queuedAt: this.now(), originatorClientId: options.originatorClientId });
    this.changed(session);
    return promptId;
  }

  /** Dispatches the FIFO head (`running`); returns its promptId. */
  start(sessionId: string): string {
    const session = this.session(sessionId);
    const head = session.queue[0];
    if (!head) throw new Error(`session ${sessionId} has no queued prompt`);
    if (head.startedAt !== undefined) throw new Error(`prompt ${head.promptId} is running already`);
    head.startedAt = this.now();
    session.counters.set(head.promptId, new TurnActivityCounter(head.startedAt, this.activityRefreshMs));
    this.changed(session);
    return head.promptId;
  }

  /**
   * The running prompt's agent sent an update (`{ kind: 'tool_call', title }`
   * for a tool call): counted into its `activity`, which polls see at most
   * once per `activityRefreshMs` of the clock; when it changes, only the
   * requests that asked for activity are woken.
   */
  agentUpdate(sessionId: string, update: CountedUpdate = { kind: 'message' }): void {
    const session = this.session(sessionId);
    const running = session.queue[0];
    const counter = running && session.counters.get(running.promptId);
    if (!counter) throw new Error(`session ${sessionId} has no running prompt`);
    counter.count(update, this.now());
    if (counter.refresh(this.now())) for (const listener of [...session.activityListeners]) listener();
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
    const prompt = this.session(sessionId).queue.find((p) => p.promptId === promptId);
    if (prompt?.startedAt !== undefined) throw new Error(`prompt ${promptId} is running: cancel() it instead`);
    return this.settle(sessionId, promptId, { state: 'cancelled' });
  }

  /** The prompt's deadline passed: `error` with code `prompt_deadline_exceeded`, and the FIFO moves on. */
  expire(sessionId: string, promptId: string): SettledTurnStatus {
    return this.settle(sessionId, promptId, {
      state: 'error',
      error: { code: 'prompt_deadline_exceeded', message: 'Prompt deadline exceeded' },
    });
  }

  /** A successful rewind: scans begun before it are stale. */
  rewind(sessionId: string): void {
    const session = this.session(sessionId);
    session.generation += 1;
    this.changed(session);
  }

  /** Closes the session: every queued or running prompt ends `error session_closed`, then the session is gone. */
  closeSession(sessionId: string): void {
    const session = this.session(sessionId);
    for (const prompt of [...session.queue]) {
      this.settle(sessionId, prompt.promptId, { state: 'error', error: { code: 'session_closed', message: 'Session closed' } });
    }
    this.sessions.delete(sessionId);
    for (const listener of [...session.listeners]) listener();
  }

  /** Watchers of the session: one per held turn request (`waitMs`) while it waits. */
  watching(sessionId: string): number {
    return this.sessions.get(sessionId)?.listeners.size ?? 0;
  }

  // The port (BridgeOverlayProvider): synchronous, no I/O, never throws for an unknown session.

  hasSession(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  isClientRegistered(sessionId: string, clientId: string): boolean {
    return this.sessions.get(sessionId)?.clients.has(clientId) ?? false;
  }

  getLive(sessionId: string, promptId?: string): LiveTurnStatus | undefined {
    const queue = this.sessions.get(sessionId)?.queue;
    // The running prompt is always the FIFO head, so "running, else queued head" is the head.
    const prompt = promptId === undefined ? queue?.[0] : queue?.find((p) => p.promptId === promptId);
    return prompt && this.liveOf(sessionId, prompt);
  }

  override listLive(sessionId: string): LiveTurnStatus[] {
    return (this.sessions.get(sessionId)?.queue ?? []).map((prompt) => this.liveOf(sessionId, prompt));
  }

  override listOverlay(sessionId: string): OverlayEntry[] {
    return this.sessions.get(sessionId)?.overlay.entries() ?? [];
  }

  getOverlay(sessionId: string, promptId: string): OverlayEntry | undefined {
    return this.sessions.get(sessionId)?.overlay.get(promptId);
  }

  getNewestOverlay(sessionId: string): OverlayEntry | undefined {
    return this.sessions.get(sessionId)?.overlay.newest();
  }

  writeBack(sessionId: string, status: SettledTurnStatus, newest: boolean): void {
    this.sessions.get(sessionId)?.overlay.setReadBack(status.promptId, { status, combined: true }, newest);
  }

  rewindGeneration(sessionId: string): number {
    return this.sessions.get(sessionId)?.generation ?? 0;
  }

  override watch(sessionId: string, listener: () => void): (() => void) | undefined {
    const listeners = this.sessions.get(sessionId)?.listeners;
    if (!listeners) return undefined;
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  override watchActivity(sessionId: string, listener: () => void): (() => void) | undefined {
    const listeners = this.sessions.get(sessionId)?.activityListeners;
    if (!listeners) return undefined;
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  private liveOf(sessionId: string, prompt: AdmittedPromptView): LiveTurnStatus {
    const counter = this.sessions.get(sessionId)?.counters.get(prompt.promptId);
    counter?.refresh(this.now());
    return liveStatus(sessionId, { ...prompt, activity: counter?.shown });
  }

  /** Publishes a terminal, first writer wins: a prompt that has one keeps it. */
  private settle(sessionId: string, promptId: string | undefined, terminal: Omit<TerminalFields, 'endedAt'>): SettledTurnStatus {
    const session = this.session(sessionId);
    const id = promptId ?? session.queue.find((p) => p.startedAt !== undefined)?.promptId;
    if (id === undefined) throw new Error(`session ${sessionId} has no running prompt`);
    const published = session.overlay.get(id);
    if (published) return published.status;
    const index = session.queue.findIndex((p) => p.promptId === id);
    if (index === -1) throw new Error(`prompt ${id} was never admitted to session ${sessionId}`);
    const [prompt] = session.queue.splice(index, 1);
    session.counters.delete(id);
    const status = settledStatus(sessionId, prompt!, { ...terminal, endedAt: this.now() });
    session.overlay.set(id, { status, combined: false });
    this.changed(session);
    return status;
  }

  private session(sessionId: string): SessionState {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`session ${sessionId} is not live: addSession() it first`);
    return session;
  }

  private changed(session: SessionState): void {
    for (const listener of [...session.listeners]) listener();
  }
}
