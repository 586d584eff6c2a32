import { HttpStatus, Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ApiException } from '../common/api-exception.js';
import { Clock } from '../common/clock.js';
import { TERMINAL_OVERLAY_SIZE } from '../common/limits.js';
import type { TurnError } from '../common/normalize-turn-error.js';
import { limitIdentifier, limitPromptText, limitResultText, promptTextOf, type PromptBlock } from '../common/turn-fields.js';
import { SessionEventBus } from '../events/session-event-bus.js';
import { SessionRegistry } from '../sessions/session-registry.js';
import type { Session } from '../sessions/session.js';
import type { TurnOutcome } from '../transcript/turn-result-payload.js';
import { BridgeOverlayProvider, type OverlayEntry } from '../turns/bridge-overlay.provider.js';
import { compactStatus, type TerminalTurnState, type TurnStatus } from '../turns/turn-status.js';
import { BRIDGE_OPTIONS, effectiveDeadlineMs, type BridgeOptions } from './bridge-options.js';
import { TerminalOverlay } from './terminal-overlay.js';

/** An admitted prompt while it is queued or running. */
interface LiveEntry {
  readonly promptId: string;
  readonly prompt: readonly PromptBlock[];
  readonly promptText: string;
  readonly queuedAt: number;
  readonly originatorClientId?: string;
  readonly abort: AbortController;
  startedAt?: number;
  /** Removal was requested; a running entry stays running until the Session settles. */
  removed: boolean;
  /** The terminal latch: set once, by whichever path publishes first. */
  published: boolean;
  deadline?: NodeJS.Timeout;
}

/** Per-session state: FIFO, the running prompt, the terminal overlay, the rewind generation. */
class SessionQueue {
  running?: LiveEntry;
  readonly queued: LiveEntry[] = [];
  readonly overlay: TerminalOverlay;
  generation = 0;

  constructor(overlaySize: number) {
    this.overlay = new TerminalOverlay(overlaySize);
  }

  get pendingCount(): number {
    return this.queued.length + (this.running ? 1 : 0);
  }

  /** Running first, then the FIFO. */
  pending(): LiveEntry[] {
    return this.running ? [this.running, ...this.queued] : [...this.queued];
  }

  find(promptId: string): LiveEntry | undefined {
    return this.running?.promptId === promptId ? this.running : this.queued.find((e) => e.promptId === promptId);
  }
}

/** What `POST /session/:id/prompt` answers. */
export interface AdmittedPrompt {
  promptId: string;
  lastEventId: number;
  eventEpoch: string;
}

/** One row of `GET /session/:id/pending-prompts`. */
export interface PendingPrompt {
  promptId: string;
  text: string;
  queuedAt: number;
  state: 'queued' | 'running';
  originatorClientId?: string;
}

/**
 * The reference {@link BridgeOverlayProvider}: admits prompts into a
 * per-session FIFO, runs one at a time through the Session, and publishes each
 * prompt's terminal status exactly once — settle, queued removal, deadline and
 * close all race through one latch — into a bounded terminal overlay.
 */
@Injectable()
export class PromptBridge extends BridgeOverlayProvider {
  private readonly logger = new Logger('PromptBridge');
  private readonly queues = new Map<string, SessionQueue>();

  constructor(
    private readonly registry: SessionRegistry,
    private readonly events: SessionEventBus,
    private readonly clock: Clock,
    @Inject(BRIDGE_OPTIONS) private readonly options: BridgeOptions,
  ) {
    super();
  }

  // --- admission and control -------------------------------------------------

  /** Admits a prompt, or throws `503 prompt_queue_full` at the per-session limit. */
  admit(sessionId: string, prompt: readonly PromptBlock[], originatorClientId?: string, deadlineMs?: number): AdmittedPrompt {
    if (this.registry.get(sessionId)?.rewinding) {
      throw new ApiException(HttpStatus.CONFLICT, 'session_busy', 'The session is being rewound', { sessionId });
    }
    const queue = this.queue(sessionId);
    const limit = this.options.maxPendingPrompts;
    if (queue.pendingCount >= limit) {
      throw new ApiException(
        HttpStatus.SERVICE_UNAVAILABLE,
        'prompt_queue_full',
        'Too many pending prompts for this session',
        { sessionId, limit, pendingCount: queue.pendingCount },
        { 'Retry-After': '1' },
      );
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
    };
    queue.queued.push(entry);
    const deadline = effectiveDeadlineMs(this.options.promptDeadlineMs, deadlineMs);
    if (deadline !== undefined) {
      entry.deadline = setTimeout(() => this.expire(sessionId, entry), deadline);
      entry.deadline.unref?.();
    }
    const added = this.events.publish(sessionId, 'pending_prompt_added', {
      promptId: entry.promptId,
      data: { text: entry.promptText, queuedAt: entry.queuedAt },
      originatorClientId,
    });
    this.pump(sessionId, queue);
    return { promptId: entry.promptId, lastEventId: added.id, eventEpoch: this.events.epoch };
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
    this.events.publish(sessionId, 'prompt_cancelled', { promptId, originatorClientId: entry.originatorClientId });
    if (entry === queue.running) {
      entry.abort.abort();
    } else {
      this.publish(sessionId, queue, entry, { state: 'cancelled', stopReason: 'cancelled' });
    }
    return true;
  }

  /** Cooperatively cancels the running prompt only; queued prompts still run. */
  cancelRunning(sessionId: string): void {
    const entry = this.queues.get(sessionId)?.running;
    if (!entry || entry.abort.signal.aborted) return;
    entry.abort.abort();
    this.events.publish(sessionId, 'prompt_cancelled', { promptId: entry.promptId, originatorClientId: entry.originatorClientId });
  }

  /** Every queued or running prompt gets an `error` terminal (`session_closed`). */
  closeSession(sessionId: string): void {
    const queue = this.queues.get(sessionId);
    if (!queue) return;
    for (const entry of queue.pending()) {
      entry.abort.abort();
      this.publish(sessionId, queue, entry, { state: 'error', error: { message: 'Session closed', code: 'session_closed' } });
    }
    this.queues.delete(sessionId);
  }

  hasPending(sessionId: string): boolean {
    return (this.queues.get(sessionId)?.pendingCount ?? 0) > 0;
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

  /** After a successful rewind: the overlay no longer speaks for the session. */
  rewound(sessionId: string): void {
    const queue = this.queue(sessionId);
    queue.overlay.clear();
    queue.generation += 1;
  }

  // --- BridgeOverlayProvider ---------------------------------------------------

  hasSession(sessionId: string): boolean {
    return this.registry.get(sessionId) !== undefined;
  }

  isClientRegistered(sessionId: string, clientId: string): boolean {
    return this.registry.get(sessionId)?.clients.has(clientId) ?? false;
  }

  getLive(sessionId: string, promptId?: string): TurnStatus | undefined {
    const queue = this.queues.get(sessionId);
    if (!queue) return undefined;
    const entry = promptId === undefined ? (queue.running ?? queue.queued[0]) : queue.find(promptId);
    if (!entry || entry.published) return undefined;
    return compactStatus({
      sessionId,
      state: entry.startedAt === undefined ? 'queued' : 'running',
      promptId: entry.promptId,
      ...limitPromptText(entry.promptText),
      queuedAt: entry.queuedAt,
      startedAt: entry.startedAt,
      originatorClientId: entry.originatorClientId && limitIdentifier(entry.originatorClientId),
    });
  }

  getOverlay(sessionId: string, promptId: string): OverlayEntry | undefined {
    return this.queues.get(sessionId)?.overlay.get(promptId);
  }

  getNewestOverlay(sessionId: string): OverlayEntry | undefined {
    return this.queues.get(sessionId)?.overlay.newest();
  }

  writeBack(sessionId: string, status: TurnStatus, newest: boolean): void {
    if (!status.promptId || !this.hasSession(sessionId)) return;
    this.queue(sessionId).overlay.set(status.promptId, { status, combined: true }, newest);
  }

  rewindGeneration(sessionId: string): number {
    return this.queues.get(sessionId)?.generation ?? 0;
  }

  // --- internals ---------------------------------------------------------------

  private queue(sessionId: string): SessionQueue {
    let queue = this.queues.get(sessionId);
    if (!queue) {
      queue = new SessionQueue(this.options.overlaySize ?? TERMINAL_OVERLAY_SIZE);
      this.queues.set(sessionId, queue);
    }
    return queue;
  }

  /** Dispatches the FIFO head into the Session when nothing is running. */
  private pump(sessionId: string, queue: SessionQueue): void {
    if (queue.running || queue.queued.length === 0) return;
    const session = this.registry.get(sessionId);
    if (!session) return;
    const entry = queue.queued.shift()!;
    queue.running = entry;
    entry.startedAt = this.clock.now();
    this.events.publish(sessionId, 'pending_prompt_started', {
      promptId: entry.promptId,
      data: { startedAt: entry.startedAt },
      originatorClientId: entry.originatorClientId,
    });
    this.dispatch(session, queue, entry);
  }

  private dispatch(session: Session, queue: SessionQueue, entry: LiveEntry): void {
    const input = {
      promptId: entry.promptId,
      prompt: entry.prompt,
      promptText: entry.promptText,
      startedAt: entry.startedAt!,
      originatorClientId: entry.originatorClientId,
    };
    session
      .prompt(input, entry.abort.signal)
      .catch((error: unknown): TurnOutcome => {
        // Session.prompt never rejects by contract; this is the forward-failure path.
        this.logger.error(`prompt forwarding failed: ${(error as Error)?.name ?? 'error'}`);
        return { promptId: entry.promptId, state: 'error', error: { message: 'Prompt forwarding failed', code: 'forward_failed' }, endedAt: this.clock.now() };
      })
      .then((outcome) => {
        this.publish(session.id, queue, entry, outcome);
        if (queue.running === entry) {
          queue.running = undefined;
          this.pump(session.id, queue);
        }
      });
  }

  private expire(sessionId: string, entry: LiveEntry): void {
    const queue = this.queues.get(sessionId);
    if (!queue || entry.published) return;
    this.publish(sessionId, queue, entry, {
      state: 'error',
      error: { message: 'Prompt deadline exceeded', code: 'prompt_deadline_exceeded' },
    });
    // Release the FIFO and cancel best effort; the agent may still settle, and
    // its persisted outcome then supersedes this error on the poll surface.
    entry.abort.abort();
    if (queue.running === entry) {
      queue.running = undefined;
      this.pump(sessionId, queue);
    }
  }

  /** The latch: the first terminal for a prompt wins; later ones are dropped. */
  private publish(
    sessionId: string,
    queue: SessionQueue,
    entry: LiveEntry,
    outcome: { state: TerminalTurnState; stopReason?: string; error?: TurnError; resultText?: string; endedAt?: number },
  ): boolean {
    if (entry.published) return false;
    entry.published = true;
    clearTimeout(entry.deadline);
    const index = queue.queued.indexOf(entry);
    if (index >= 0) queue.queued.splice(index, 1);
    const status = compactStatus({
      sessionId,
      state: outcome.state,
      promptId: entry.promptId,
      ...limitPromptText(entry.promptText),
      queuedAt: entry.queuedAt,
      startedAt: entry.startedAt,
      endedAt: outcome.endedAt ?? this.clock.now(),
      stopReason: outcome.stopReason && limitIdentifier(outcome.stopReason),
      error: outcome.error,
      ...(outcome.resultText !== undefined && limitResultText(outcome.resultText)),
      originatorClientId: entry.originatorClientId && limitIdentifier(entry.originatorClientId),
    });
    queue.overlay.set(entry.promptId, { status, combined: false });
    const fields = { promptId: entry.promptId, originatorClientId: entry.originatorClientId };
    this.events.publish(sessionId, outcome.state === 'error' ? 'turn_error' : 'turn_complete', { ...fields, data: status });
    this.events.publish(sessionId, 'pending_prompt_completed', { ...fields, data: { state: outcome.state } });
    return true;
  }
}
