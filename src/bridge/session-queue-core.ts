import { TerminalOverlay } from '../turns/overlay/terminal-overlay.js';
import type { LiveTurnStatus, PendingInteraction } from '../turns/turn-status.js';
import { ActivityWatch } from './activity-watch.js';
import { PromptQueue, type QueuedPrompt } from './prompt-queue.js';
import { SessionWatchers } from './session-watchers.js';
import { ACTIVITY_REFRESH_MS, TurnActivityCounter, type CountedReport } from './turn-activity.js';
import { liveStatus, settledStatus, type TerminalFields } from './turn-status-projection.js';
import { TurnTransitionStream, type TurnObserver, type TurnTransition } from './turn-transition.js';

/** How a {@link SessionQueueCore} is set up. */
export interface SessionQueueCoreOptions {
  /** The clock of `queuedAt`, `startedAt` and activity (epoch ms). */
  now: () => number;
  /** Terminal statuses kept per session. @default TERMINAL_OVERLAY_SIZE */
  overlaySize?: number;
  /** Least time between two changes of a running turn's `activity`. @default ACTIVITY_REFRESH_MS */
  activityRefreshMs?: number;
  /** Where an observer or watcher that throws is reported. */
  logger: { error(message: string): void };
  /** Observers that see each transition before the session's watchers are woken (events, metrics, spans). */
  observers?: readonly TurnObserver[];
  /** The approvals a running prompt waits on (docs/permissions.md), read when its live status is projected; their owner keeps them. */
  interactions?: (sessionId: string, promptId: string) => readonly PendingInteraction[] | undefined;
}

/**
 * The turn-transition core, free of Nest: a FIFO per session, one prompt running, a first-writer latch on each
 * terminal, every move one {@link TurnTransition} (docs/decisions.md#the-queue-core-is-free-of-nest).
 */
export class SessionQueueCore<E extends QueuedPrompt = QueuedPrompt> {
  readonly transitions: TurnTransitionStream;
  /** The terminal statuses of every session, as polls read them. */
  readonly overlay: TerminalOverlay;
  private readonly queues = new Map<string, PromptQueue<E>>();
  private readonly watchers: SessionWatchers;
  private readonly activity: ActivityWatch;

  constructor(private readonly options: SessionQueueCoreOptions) {
    this.transitions = new TurnTransitionStream(options.logger);
    this.watchers = new SessionWatchers(options.logger);
    this.activity = new ActivityWatch(options.now, options.logger);
    this.overlay = new TerminalOverlay({ capacity: options.overlaySize });
    for (const observer of options.observers ?? []) this.transitions.subscribe(observer);
    // A woken request re-reads the session, so it comes after the observers that change what it reads.
    this.transitions.subscribe((transition) => this.watchers.notify(transition.sessionId));
  }

  /** The session's queue, made on first use. */
  queue(sessionId: string): PromptQueue<E> {
    let queue = this.queues.get(sessionId);
    if (!queue) {
      queue = new PromptQueue<E>();
      this.queues.set(sessionId, queue);
    }
    return queue;
  }

  /** The session's queue if it has one (no queue is made). */
  existing(sessionId: string): PromptQueue<E> | undefined {
    return this.queues.get(sessionId);
  }

  /** Prompts queued and running across every session. */
  promptCounts(): { queued: number; running: number } {
    let queued = 0;
    let running = 0;
    for (const queue of this.queues.values()) {
      queued += queue.queued.length;
      if (queue.running) running += 1;
    }
    return { queued, running };
  }

  /** Puts `entry` at the end of the session's FIFO (`queued`). */
  admit(sessionId: string, entry: E): void {
    const queue = this.queue(sessionId);
    // Only a prompt that waits behind another is announced as pending (docs/qwen-serve.md).
    entry.waited = queue.running !== undefined || queue.queued.length > 0;
    queue.queued.push(entry);
    this.emit('admitted', sessionId, entry, liveStatus(sessionId, entry));
  }

  /** Moves the FIFO head into the running slot (`running`) when nothing runs and it is not held; the entry, or `undefined`. */
  dispatch(sessionId: string): E | undefined {
    const queue = this.queues.get(sessionId);
    if (!queue || queue.running || queue.queued.length === 0 || queue.queued[0]!.held) return undefined;
    const entry = queue.queued.shift()!;
    queue.running = entry;
    entry.startedAt = this.options.now();
    entry.counter = new TurnActivityCounter(entry.startedAt, this.options.activityRefreshMs ?? ACTIVITY_REFRESH_MS);
    entry.status = undefined;
    this.emit('started', sessionId, entry, liveStatus(sessionId, entry));
    return entry;
  }

  /**
   * The latch: the first terminal for a prompt wins and is published (a
   * queued one leaves the FIFO; a running one keeps its slot until
   * {@link release}, hidden from live reads); later ones are dropped — the
   * entry remembers past the overlay's bound. True when this one won.
   * The entry is the latch, not the overlay: were its id's terminal held
   * already (an id a host reused), the overlay keeps that one, yet this
   * prompt still ends — leaves the queue and emits `settled`, so its
   * ledger record, webhooks and pending approvals end with it.
   */
  settle(sessionId: string, entry: E, terminal: TerminalFields): boolean {
    if (entry.published) return false;
    const status = settledStatus(sessionId, entry, terminal);
    this.overlay.publish(status);
    entry.published = true;
    clearTimeout(entry.activityTimer);
    const queue = this.queue(sessionId);
    if (entry !== queue.running) queue.release(entry);
    this.emit('settled', sessionId, entry, status);
    return true;
  }

  /**
   * Takes back a prompt whose admission was refused before it was
   * acknowledged (it never ran): it leaves the FIFO through the latch, with no
   * terminal — the overlay never answers for it — and observers see
   * `withdrawn`, not `settled`. False when it had ended already.
   */
  withdraw(sessionId: string, entry: E): boolean {
    if (entry.published) return false;
    entry.published = true;
    clearTimeout(entry.activityTimer);
    this.queues.get(sessionId)?.release(entry);
    this.emit('withdrawn', sessionId, entry, liveStatus(sessionId, entry));
    return true;
  }

  /** The Session settled a prompt whose terminal was published already (a deadline): its outcome may supersede it. */
  settleLate(sessionId: string, entry: E, terminal: TerminalFields): void {
    this.emit('settled_late', sessionId, entry, settledStatus(sessionId, entry, terminal));
  }

  /** Frees the running slot (or the FIFO place) of `entry`; true when it was running, so the next may start. */
  release(sessionId: string, entry: E): boolean {
    return this.queues.get(sessionId)?.release(entry) ?? false;
  }

  /** Every pending prompt ends with `terminal`; then the session's queue, overlay and watchers go. */
  close(sessionId: string, terminal: TerminalFields): void {
    const queue = this.queues.get(sessionId);
    // A session polled but never prompted here may hold write-backs.
    if (!queue) return this.overlay.forget(sessionId);
    for (const entry of queue.pending()) this.settle(sessionId, entry, terminal);
    this.queues.delete(sessionId);
    this.overlay.forget(sessionId);
    this.watchers.notify(sessionId);
    this.watchers.forget(sessionId);
    this.activity.forget(sessionId);
  }

  /** Closes admission for a rewind; false (nothing changes) while a prompt is pending or another rewind runs. */
  beginRewind(sessionId: string): boolean {
    const queue = this.queue(sessionId);
    if (queue.rewinding || queue.pendingCount > 0) return false;
    queue.rewinding = true;
    return true;
  }

  /** Reopens admission; a successful rewind clears the overlay and makes scans begun before it stale. */
  endRewind(sessionId: string, succeeded: boolean): void {
    const queue = this.queues.get(sessionId);
    if (!queue) return;
    queue.rewinding = false;
    if (!succeeded) return;
    this.overlay.rewound(sessionId);
    this.watchers.notify(sessionId);
  }

  // --- what a poll reads (BridgeOverlayProvider; the overlay is read directly) -------

  getLive(sessionId: string, promptId?: string): LiveTurnStatus | undefined {
    const queue = this.queues.get(sessionId);
    const entry = promptId === undefined ? queue?.head() : queue?.find(promptId);
    return entry && this.liveOf(sessionId, entry);
  }

  listLive(sessionId: string): LiveTurnStatus[] {
    const live: LiveTurnStatus[] = [];
    for (const entry of this.queues.get(sessionId)?.pending() ?? []) {
      const status = this.liveOf(sessionId, entry);
      if (status) live.push(status);
    }
    return live;
  }

  watch(sessionId: string, listener: () => void): () => void {
    return this.watchers.add(sessionId, listener);
  }

  /** Watches a running turn's `activity` (see {@link ActivityWatch}). */
  watchActivity(sessionId: string, listener: () => void): () => void {
    return this.activity.watch(sessionId, listener, this.queues.get(sessionId)?.pending() ?? []);
  }

  /** Watchers of the session (held requests). */
  watcherCount(sessionId: string): number {
    return this.watchers.count(sessionId);
  }

  /**
   * A request for approval appeared on, or left, the prompt: its live status
   * is projected afresh (a new ETag) and the session's held requests wake.
   */
  interactionsChanged(sessionId: string, promptId: string): void {
    const entry = this.queues.get(sessionId)?.find(promptId);
    if (!entry || entry.published) return;
    entry.status = undefined;
    this.watchers.notify(sessionId);
  }

  /** Counts one agent update of a running prompt into its `activity`, or takes its usage so far (see {@link ActivityWatch}). */
  counted(sessionId: string, entry: E, update: CountedReport): void {
    this.activity.counted(sessionId, entry, update);
  }

  /** The live status of an entry, reused until it starts or its activity is refreshed (so its bytes are serialized once). */
  private liveOf(sessionId: string, entry: E): LiveTurnStatus | undefined {
    if (entry.published) return undefined;
    this.activity.refreshOnRead(sessionId, entry);
    if (entry.status?.state !== (entry.startedAt === undefined ? 'queued' : 'running')) {
      const pendingInteractions = entry.startedAt === undefined ? undefined : this.options.interactions?.(sessionId, entry.promptId);
      entry.status = liveStatus(sessionId, { ...entry, ...entry.counter?.shownFields, pendingInteractions });
    }
    return entry.status;
  }

  private emit(kind: TurnTransition['kind'], sessionId: string, entry: E, status: TurnTransition['status']): void {
    const { promptId, waited = false, originatorClientId, idempotency } = entry;
    this.transitions.emit({
      kind,
      sessionId,
      promptId,
      status,
      waited,
      ...(originatorClientId !== undefined && { originatorClientId }),
      ...(kind === 'admitted' && idempotency && { idempotency }),
    });
  }
}
