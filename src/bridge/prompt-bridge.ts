import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { promptQueueFull, promptTooLarge, sessionBusy, sessionNotFound } from '../errors/api-errors.js';
import { Clock } from '../common/clock.js';
import { limitPromptText, promptChars, promptTextOf, type PromptBlock } from '../turns/rules/turn-fields.js';
import type { TurnOutcome } from '../turns/rules/turn-outcome.js';
import type { AdmittedPrompt, PendingPrompt } from '../wire/wire-types.js';
import type { SessionEventData, SessionEventKind } from '../wire/session-event.js';
import type { AdmissionIdempotency } from '../idempotency/idempotency.interceptor.js';
import { SessionEventBus } from '../events/session-event-bus.js';
import { captureContext, endSpan, SpanKind, startSpan, tracingEnabled, withSpan, type TurnSpan } from '../telemetry/tracing.js';
import { TURNS_CHANNELS } from '../telemetry/turns-channels.js';
import { BridgeOverlayProvider, type OverlayEntry } from '../turns/bridge-overlay.provider.js';
import type { LiveTurnStatus, SettledTurnStatus } from '../turns/turn-status.js';
import { BRIDGE_OPTIONS, effectiveDeadlineMs, type BridgeOptions } from './bridge-options.js';
import { PromptQueue, type LiveEntry } from './prompt-queue.js';
import { SessionRunner } from './session-runner.js';
import { SessionWatchers } from './session-watchers.js';
import { TurnActivityCounter, type CountedUpdate } from './turn-activity.js';
import { liveStatus, settledStatus, type TerminalFields } from './turn-status-projection.js';
import { pendingPromptAdded, pendingPromptCompleted, pendingPromptStarted, terminalEvent } from './turn-events.js';

/**
 * A prompt's move the bridge tells its observers of (webhooks, the prompt
 * ledger): it was admitted (queued); it started
 * running; its terminal was published (once: the latch's winner); or the
 * Session settled it after the bridge had already published an error for it
 * (a deadline), so its persisted outcome may now supersede that error.
 *
 * @publicApi
 */
export interface TurnTransition {
  kind: 'admitted' | 'started' | 'settled' | 'settled_late';
  sessionId: string;
  promptId: string;
  /** The status as the bridge knows it at that moment (for `settled_late`, the Session's outcome). */
  status: LiveTurnStatus | SettledTurnStatus;
}

/**
 * The reference {@link BridgeOverlayProvider} and the one owner of admission:
 * admits prompts into a per-session FIFO (closed while a rewind is written),
 * runs one at a time through the {@link SessionRunner}, and publishes each
 * prompt's terminal status exactly once — settle, queued removal, deadline and
 * close all race through one latch — into a bounded terminal overlay.
 *
 * @publicApi
 */
@Injectable()
export class PromptBridge extends BridgeOverlayProvider {
  private readonly logger = new Logger('PromptBridge');
  private readonly queues = new Map<string, PromptQueue>();
  private readonly watchers = new SessionWatchers(this.logger);
  private readonly activityWatchers = new SessionWatchers(this.logger);
  private readonly observers = new Set<(transition: TurnTransition) => void>();

  constructor(
    private readonly sessions: SessionRunner,
    private readonly events: SessionEventBus,
    private readonly clock: Clock,
    @Inject(BRIDGE_OPTIONS) private readonly options: BridgeOptions,
  ) {
    super();
  }

  // --- admission and control -------------------------------------------------

  /**
   * Admits a prompt; `409 session_busy` while a rewind is being written,
   * `503 prompt_queue_full` at the per-session limit. An `Idempotency-Key`
   * is recorded with the prompt, with its answer.
   */
  admit(
    sessionId: string,
    prompt: readonly PromptBlock[],
    originatorClientId?: string,
    deadlineMs?: number,
    idempotency?: AdmissionIdempotency,
  ): AdmittedPrompt {
    const chars = promptChars(prompt);
    if (this.options.maxPromptChars !== undefined && chars > this.options.maxPromptChars) {
      throw promptTooLarge(sessionId, chars, this.options.maxPromptChars);
    }
    const span = startSpan('turns.prompt.admit');
    span?.setAttribute('turns.session_id', sessionId);
    try {
      const admitted = this.admitTraced(sessionId, prompt, originatorClientId, deadlineMs, idempotency, span);
      span?.setAttribute('turns.prompt_id', admitted.promptId);
      endSpan(span);
      return admitted;
    } catch (error) {
      endSpan(span, error);
      throw error;
    }
  }

  private admitTraced(
    sessionId: string,
    prompt: readonly PromptBlock[],
    originatorClientId: string | undefined,
    deadlineMs: number | undefined,
    idempotency: AdmissionIdempotency | undefined,
    span: TurnSpan | undefined,
  ): AdmittedPrompt {
    // A request that passed the guard before its session's teardown began is refused, never queued.
    if (!this.sessions.hasSession(sessionId)) throw sessionNotFound(sessionId);
    const queue = this.queue(sessionId);
    if (queue.rewinding) throw sessionBusy(sessionId);
    if (queue.pendingCount >= this.options.maxPendingPrompts) {
      throw promptQueueFull(sessionId, this.options.maxPendingPrompts, queue.pendingCount);
    }
    const entry: LiveEntry = {
      promptId: randomUUID(),
      prompt,
      promptText: promptTextOf(prompt),
      queuedAt: this.clock.now(),
      originatorClientId,
      abort: new AbortController(),
      removed: false,
      published: false,
      ...(tracingEnabled() && { traceContext: captureContext(span) }),
    };
    // The resume point of the admission's answer: every event of this prompt comes after it.
    const lastEventId = this.events.lastEventId(sessionId);
    // Only a prompt that waits behind another is announced as pending (SPEC §19).
    entry.waited = queue.running !== undefined || queue.queued.length > 0;
    queue.queued.push(entry);
    TURNS_CHANNELS.promptAdmitted.publish({ sessionId });
    if (this.observers.size > 0)
      this.transition({ kind: 'admitted', sessionId, promptId: entry.promptId, status: liveStatus(sessionId, entry) });
    const deadline = effectiveDeadlineMs(this.options.promptDeadlineMs, deadlineMs);
    if (deadline !== undefined) {
      entry.deadline = setTimeout(() => this.expire(sessionId, entry), deadline);
      entry.deadline.unref?.();
    }
    if (entry.waited) this.announce(sessionId, 'pending_prompt_added', entry, pendingPromptAdded(sessionId, entry));
    const admitted = { promptId: entry.promptId, lastEventId, eventEpoch: this.events.epochOf(sessionId) };
    if (idempotency) {
      const { key, fingerprint } = idempotency;
      const clientId = originatorClientId !== undefined ? { clientId: originatorClientId } : {};
      entry.idempotency = {
        key,
        fingerprint,
        ...clientId,
        lastEventId,
        eventEpoch: admitted.eventEpoch,
        admittedAt: entry.queuedAt,
      };
    }
    this.pump(sessionId, queue);
    this.notify(sessionId);
    return admitted;
  }

  /**
   * Removes a pending prompt. A queued one is `cancelled` at once; a running
   * one is aborted and stays `running` until the Session settles it. False for
   * unknown prompts and for ones already removed.
   */
  remove(sessionId: string, promptId: string): boolean {
    const queue = this.queues.get(sessionId);
    const entry = queue?.find(promptId);
    if (!queue || !entry || entry.removed) return false;
    entry.removed = true;
    this.announce(sessionId, 'prompt_cancelled', entry, { sessionId, promptId });
    if (entry === queue.running) entry.abort.abort();
    else this.publish(sessionId, queue, entry, { state: 'cancelled', stopReason: 'cancelled', endedAt: this.clock.now() });
    return true;
  }

  /** Cooperatively cancels the running prompt only; queued prompts still run. */
  cancelRunning(sessionId: string): void {
    const entry = this.queues.get(sessionId)?.running;
    if (!entry || entry.abort.signal.aborted) return;
    entry.abort.abort();
    this.announce(sessionId, 'prompt_cancelled', entry, { sessionId, promptId: entry.promptId });
  }

  /** Every queued or running prompt gets an `error` terminal (`session_closed`). */
  closeSession(sessionId: string): void {
    const queue = this.queues.get(sessionId);
    if (!queue) return;
    const error = { message: 'Session closed', code: 'session_closed' };
    for (const entry of queue.pending()) {
      entry.abort.abort();
      this.publish(sessionId, queue, entry, { state: 'error', error, endedAt: this.clock.now() });
    }
    this.queues.delete(sessionId);
    this.notify(sessionId);
    this.watchers.forget(sessionId);
    this.activityWatchers.forget(sessionId);
  }

  /**
   * Closes admission for a rewind: `409 session_busy` while a prompt is queued
   * or running or another rewind is in progress. Pair with {@link endRewind}.
   */
  beginRewind(sessionId: string): void {
    const queue = this.queue(sessionId);
    if (queue.rewinding || queue.pendingCount > 0) throw sessionBusy(sessionId);
    queue.rewinding = true;
  }

  /**
   * Reopens admission. After a successful rewind the overlay no longer speaks
   * for the session: it is cleared and scans begun before are stale; after a
   * failed one it is kept.
   */
  endRewind(sessionId: string, succeeded: boolean): void {
    const queue = this.queues.get(sessionId);
    if (!queue) return;
    queue.rewinding = false;
    if (!succeeded) return;
    queue.overlay.clear();
    queue.generation += 1;
    this.notify(sessionId);
  }

  /** Prompts queued and running across every session (read when metrics are scraped or status is asked). */
  promptCounts(): { queued: number; running: number } {
    let queued = 0;
    let running = 0;
    for (const queue of this.queues.values()) {
      queued += queue.queued.length;
      if (queue.running) running += 1;
    }
    return { queued, running };
  }

  pendingPrompts(sessionId: string): PendingPrompt[] {
    const queue = this.queues.get(sessionId);
    if (!queue) return [];
    return queue.pending().map((entry) => ({
      promptId: entry.promptId,
      text: limitPromptText(entry.promptText).promptText,
      queuedAt: entry.queuedAt,
      state: entry === queue.running ? 'running' : 'queued',
      ...(entry.originatorClientId !== undefined && { originatorClientId: entry.originatorClientId }),
    }));
  }

  // --- BridgeOverlayProvider ---------------------------------------------------

  // The port's session lookup is the registry's; the daemon binds ClientIdGuard to the registry itself.
  hasSession(sessionId: string): boolean {
    return this.sessions.hasSession(sessionId);
  }

  isClientRegistered(sessionId: string, clientId: string): boolean {
    return this.sessions.isClientRegistered(sessionId, clientId);
  }

  getLive(sessionId: string, promptId?: string): LiveTurnStatus | undefined {
    const queue = this.queues.get(sessionId);
    const entry = promptId === undefined ? queue?.head() : queue?.find(promptId);
    return entry && this.liveOf(sessionId, entry);
  }

  override listLive(sessionId: string): LiveTurnStatus[] {
    const queue = this.queues.get(sessionId);
    if (!queue) return [];
    const live: LiveTurnStatus[] = [];
    for (const entry of queue.pending()) {
      const status = this.liveOf(sessionId, entry);
      if (status) live.push(status);
    }
    return live;
  }

  override listOverlay(sessionId: string): OverlayEntry[] {
    return this.queues.get(sessionId)?.overlay.entries() ?? [];
  }

  getOverlay(sessionId: string, promptId: string): OverlayEntry | undefined {
    return this.queues.get(sessionId)?.overlay.get(promptId);
  }

  getNewestOverlay(sessionId: string): OverlayEntry | undefined {
    return this.queues.get(sessionId)?.overlay.newest();
  }

  writeBack(sessionId: string, status: SettledTurnStatus, newest: boolean): void {
    if (!this.hasSession(sessionId)) return;
    this.queue(sessionId).overlay.setReadBack(status.promptId, { status, combined: true }, newest);
  }

  rewindGeneration(sessionId: string): number {
    return this.queues.get(sessionId)?.generation ?? 0;
  }

  override watch(sessionId: string, listener: () => void): () => void {
    return this.watchers.add(sessionId, listener);
  }

  override watchActivity(sessionId: string, listener: () => void): () => void {
    const stop = this.activityWatchers.add(sessionId, listener);
    // Updates that came while no one watched armed no timer: the new watcher wakes when they are shown.
    for (const entry of this.queues.get(sessionId)?.pending() ?? []) {
      if (entry.counter && !entry.published) this.armActivity(sessionId, entry);
    }
    return stop;
  }

  /** Observes every prompt's admission, start and terminal, in every session (synchronously, as they happen). */
  onTransition(observer: (transition: TurnTransition) => void): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  // --- internals ---------------------------------------------------------------

  /** The live status of an entry, reused until it starts or its activity is refreshed (so its bytes are serialized once). */
  private liveOf(sessionId: string, entry: LiveEntry): LiveTurnStatus | undefined {
    if (entry.published) return undefined;
    if (entry.counter?.refresh(this.clock.now())) {
      entry.status = undefined;
      // The poll showed new activity: the held requests that watch it re-read it — later, never inside this read.
      queueMicrotask(() => this.activityWatchers.notify(sessionId));
    }
    if (entry.status?.state !== (entry.startedAt === undefined ? 'queued' : 'running')) {
      entry.status = liveStatus(sessionId, { ...entry, activity: entry.counter?.shown });
    }
    return entry.status;
  }

  /**
   * Counts one agent update of a running prompt. Polls see the counts at most
   * once a second; plain waiters are never woken by them, only the ones that
   * watch activity — through one timer per prompt when the second is not up.
   */
  private counted(sessionId: string, entry: LiveEntry, update: CountedUpdate): void {
    const counter = entry.counter;
    if (!counter || entry.published) return;
    counter.count(update, this.clock.now());
    this.showActivity(sessionId, entry);
  }

  private showActivity(sessionId: string, entry: LiveEntry): void {
    const counter = entry.counter!;
    const now = this.clock.now();
    if (counter.refresh(now)) {
      entry.status = undefined;
      this.activityWatchers.notify(sessionId);
      return;
    }
    this.armActivity(sessionId, entry);
  }

  /** One timer per prompt, while someone watches activity and some is not shown yet. */
  private armActivity(sessionId: string, entry: LiveEntry): void {
    const delay = entry.counter!.pendingIn(this.clock.now());
    if (delay === undefined || entry.activityTimer || !this.activityWatchers.has(sessionId)) return;
    entry.activityTimer = setTimeout(() => {
      entry.activityTimer = undefined;
      if (!entry.published) this.showActivity(sessionId, entry);
    }, delay);
    entry.activityTimer.unref?.();
  }

  private transition(transition: TurnTransition): void {
    for (const observer of this.observers) {
      try {
        observer(transition);
      } catch (error) {
        this.logger.error(`turn observer failed: ${(error as Error)?.name ?? 'error'}`);
      }
    }
  }

  private queue(sessionId: string): PromptQueue {
    let queue = this.queues.get(sessionId);
    if (!queue) {
      queue = new PromptQueue(this.options.overlaySize);
      this.queues.set(sessionId, queue);
    }
    return queue;
  }

  /** Dispatches the FIFO head into the Session when nothing is running. */
  private pump(sessionId: string, queue: PromptQueue): void {
    if (queue.running || queue.queued.length === 0 || !this.sessions.hasSession(sessionId)) return;
    const entry = queue.queued.shift()!;
    queue.running = entry;
    entry.startedAt = this.clock.now();
    entry.counter = new TurnActivityCounter(entry.startedAt, this.options.activityRefreshMs);
    TURNS_CHANNELS.promptStarted.publish({ queueWaitMs: entry.startedAt - entry.queuedAt });
    entry.span = startSpan('turns.prompt.execute', SpanKind.INTERNAL, entry.traceContext);
    entry.span?.setAttributes({ 'turns.session_id': sessionId, 'turns.prompt_id': entry.promptId });
    if (entry.waited) this.announce(sessionId, 'pending_prompt_started', entry, pendingPromptStarted(sessionId, entry));
    this.notify(sessionId);
    if (this.observers.size > 0)
      this.transition({ kind: 'started', sessionId, promptId: entry.promptId, status: liveStatus(sessionId, entry) });
    const { promptId, prompt, promptText, startedAt, originatorClientId, idempotency } = entry;
    const onUpdate = (update: CountedUpdate) => this.counted(sessionId, entry, update);
    const run = withSpan(entry.span, () =>
      this.sessions.run(
        sessionId,
        { promptId, prompt, promptText, startedAt, originatorClientId, idempotency, onUpdate },
        entry.abort.signal,
      ),
    );
    Promise.resolve(run)
      .then((outcome) => outcome ?? Promise.reject(new Error('session is not live')))
      .catch((error: unknown): TurnOutcome => {
        // Running never rejects by contract; this is the forward-failure path.
        this.logger.error(`prompt forwarding failed: ${(error as Error)?.name ?? 'error'}`);
        return {
          promptId,
          state: 'error',
          error: { message: 'Prompt forwarding failed', code: 'forward_failed' },
          endedAt: this.clock.now(),
        };
      })
      .then((outcome) => {
        const late = entry.published;
        this.publish(sessionId, queue, entry, outcome);
        if (late && this.observers.size > 0) {
          this.transition({ kind: 'settled_late', sessionId, promptId, status: settledStatus(sessionId, entry, outcome) });
        }
        this.releaseAndPump(sessionId, queue, entry);
      });
  }

  private expire(sessionId: string, entry: LiveEntry): void {
    const queue = this.queues.get(sessionId);
    if (!queue || entry.published) return;
    const error = { message: 'Prompt deadline exceeded', code: 'prompt_deadline_exceeded' };
    this.publish(sessionId, queue, entry, { state: 'error', error, endedAt: this.clock.now() });
    // Release the FIFO and cancel best effort; the agent may still settle, and
    // its persisted outcome then supersedes this error on the poll surface.
    entry.abort.abort();
    this.releaseAndPump(sessionId, queue, entry);
  }

  /** Tells the session's watchers that its state moved (they re-read it; nothing is passed). */
  private notify(sessionId: string): void {
    this.watchers.notify(sessionId);
  }

  private releaseAndPump(sessionId: string, queue: PromptQueue, entry: LiveEntry): void {
    if (queue.release(entry)) this.pump(sessionId, queue);
  }

  /** The latch: the first terminal for a prompt wins; later ones are dropped. */
  private publish(sessionId: string, queue: PromptQueue, entry: LiveEntry, terminal: TerminalFields): void {
    if (entry.published) return;
    entry.published = true;
    clearTimeout(entry.deadline);
    clearTimeout(entry.activityTimer);
    if (entry !== queue.running) queue.release(entry);
    const status = settledStatus(sessionId, entry, terminal);
    TURNS_CHANNELS.promptSettled.publish({
      state: status.state,
      ...(entry.startedAt !== undefined && { runMs: status.endedAt - entry.startedAt }),
    });
    if (entry.span) {
      entry.span.setAttribute('turns.state', status.state);
      endSpan(entry.span, status.state === 'error' ? new Error(status.error.code ?? 'error') : undefined);
      entry.span = undefined;
    }
    queue.overlay.set(entry.promptId, { status, combined: false });
    const wire = terminalEvent(status);
    this.announce(sessionId, wire.type, entry, wire.data);
    if (entry.waited) {
      this.announce(
        sessionId,
        'pending_prompt_completed',
        entry,
        pendingPromptCompleted(sessionId, entry.promptId, entry.startedAt !== undefined),
      );
    }
    this.notify(sessionId);
    this.transition({ kind: 'settled', sessionId, promptId: entry.promptId, status });
  }

  private announce<T extends SessionEventKind>(sessionId: string, type: T, entry: LiveEntry, data: SessionEventData[T]) {
    return this.events.publish(sessionId, type, { promptId: entry.promptId, data, originatorClientId: entry.originatorClientId });
  }
}
