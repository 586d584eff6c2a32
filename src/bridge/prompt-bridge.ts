import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { promptQueueFull, promptTooLarge, sessionBusy, sessionNotFound } from '../errors/api-errors.js';
import { Clock } from '../common/clock.js';
import { promptChars, promptTextOf, type PromptBlock } from '../turns/rules/turn-fields.js';
import type { AdmittedPrompt, PendingPrompt } from '../wire/wire-types.js';
import type { AdmissionIdempotency } from '../idempotency/idempotency.interceptor.js';
import { SessionEventBus } from '../events/session-event-bus.js';
import { inSpan } from '../telemetry/tracing.js';
import { BRIDGE_OPTIONS, effectiveDeadlineMs, type BridgeOptions } from './bridge.settings.js';
import { SESSION_CLOSED } from './bridge-errors.js';
import { effectiveMaxTokens } from './token-budget.js';
import type { AdmissionOptions, LiveEntry } from './prompt-queue.js';
import { QueueBackedOverlay } from './queue-backed-overlay.js';
import { QueueDriver } from './queue-driver.js';
import { SessionQueueCore } from './session-queue-core.js';
import { SessionRunner } from './session-runner.js';
import { publishTurnChannels } from './turn-channel-observer.js';
import { announceTurnEvents } from './turn-event-announcer.js';
import { TurnSpans } from './turn-spans.js';
import { pendingPromptOf } from './turn-status-projection.js';
import type { TurnObserver } from './turn-transition.js';

export type { TurnTransition } from './turn-transition.js';

/**
 * What an admitted prompt waits on before it may run: its admission's record
 * (the ledger's synced `in_flight` line); `undefined` when there is none to
 * wait for. A rejection withdraws the prompt before it ever runs.
 *
 * @publicApi
 */
export type AdmissionGate = (sessionId: string, promptId: string) => Promise<void> | undefined;

/**
 * The reference {@link BridgeOverlayProvider} and the one owner of admission: a FIFO per session, one prompt
 * running at a time, each terminal published once (docs/decisions.md#the-prompt-bridge-owns-admission).
 *
 * @publicApi
 */
@Injectable()
export class PromptBridge extends QueueBackedOverlay<LiveEntry> {
  private readonly logger = new Logger('PromptBridge');
  private readonly spans = new TurnSpans();
  protected readonly core: SessionQueueCore<LiveEntry>;
  private readonly driver: QueueDriver;
  private admissionGate?: AdmissionGate;

  constructor(
    private readonly sessions: SessionRunner,
    private readonly events: SessionEventBus,
    private readonly clock: Clock,
    @Inject(BRIDGE_OPTIONS) private readonly options: BridgeOptions,
  ) {
    super();
    this.core = new SessionQueueCore<LiveEntry>({
      now: () => this.clock.now(),
      overlaySize: options.overlaySize,
      activityRefreshMs: options.activityRefreshMs,
      logger: this.logger,
      // The turn's end resolves what it waits on (its requests for approval) before its terminal event is announced.
      observers: [this.hookObserver, announceTurnEvents(events), publishTurnChannels, this.spans.observe],
      interactions: this.hookedInteractions,
    });
    const { core, spans, logger } = this;
    this.driver = new QueueDriver({ core, sessions, events, clock, spans, logger, hooks: () => this.hooks });
  }

  // --- admission and control -------------------------------------------------

  /**
   * Admits a prompt; `409 session_busy` while a rewind is being written,
   * `503 prompt_queue_full` at the per-session limit. An `Idempotency-Key`
   * is recorded with the prompt, with its answer; `maxTokens` narrows the
   * daemon's token budget (see {@link effectiveMaxTokens}); `principal` is
   * who asked, for the approval audit.
   */
  admit(
    sessionId: string,
    prompt: readonly PromptBlock[],
    originatorClientId?: string,
    deadlineMs?: number,
    idempotency?: AdmissionIdempotency,
    { principal, maxTokens }: AdmissionOptions = {},
  ): AdmittedPrompt {
    this.hooks?.assertAdmissible(sessionId, originatorClientId);
    const chars = promptChars(prompt);
    if (this.options.maxPromptChars !== undefined && chars > this.options.maxPromptChars) {
      throw promptTooLarge(sessionId, chars, this.options.maxPromptChars);
    }
    return inSpan('turns.prompt.admit', (span) => {
      span?.setAttribute('turns.session_id', sessionId);
      // A request that passed the guard before its session's teardown began is refused, never queued.
      if (!this.sessions.hasSession(sessionId)) throw sessionNotFound(sessionId);
      const queue = this.core.queue(sessionId);
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
        ...(principal !== undefined && { principal }),
        abort: new AbortController(),
        removed: false,
        published: false,
        maxTokens: effectiveMaxTokens(this.options.promptMaxTokens, maxTokens),
      };
      span?.setAttribute('turns.prompt_id', entry.promptId);
      // The resume point of the admission's answer: every event of this prompt comes after it.
      const lastEventId = this.events.lastEventId(sessionId);
      const eventEpoch = this.events.epochOf(sessionId);
      if (idempotency) {
        const { key, fingerprint } = idempotency;
        const clientId = originatorClientId !== undefined ? { clientId: originatorClientId } : {};
        entry.idempotency = { key, fingerprint, ...clientId, lastEventId, eventEpoch, admittedAt: entry.queuedAt };
      }
      const deadline = effectiveDeadlineMs(this.options.promptDeadlineMs, deadlineMs);
      if (deadline !== undefined) {
        entry.deadline = setTimeout(() => this.driver.expire(sessionId, entry), deadline);
        entry.deadline.unref?.();
      }
      this.core.admit(sessionId, entry);
      const gate = this.admissionGate?.(sessionId, entry.promptId);
      if (gate) this.driver.hold(sessionId, entry, gate);
      this.driver.pump(sessionId);
      return { promptId: entry.promptId, lastEventId, eventEpoch };
    });
  }

  /**
   * Removes a pending prompt. A queued one is `cancelled` at once; a running
   * one is aborted and stays `running` until the Session settles it. False for
   * unknown prompts and for ones already removed.
   */
  remove(sessionId: string, promptId: string): boolean {
    const queue = this.core.existing(sessionId);
    const entry = queue?.find(promptId);
    if (!queue || !entry || entry.removed) return false;
    if (entry.held) {
      // Its admission may yet be refused: the removal is announced once it is acknowledged (unless a deadline came first).
      if (entry.heldTerminal) return false;
      entry.removed = true;
      entry.heldTerminal = { state: 'cancelled', stopReason: 'cancelled', endedAt: this.clock.now() };
      return true;
    }
    entry.removed = true;
    // A cancel of the running prompt announced it already: one prompt_cancelled a prompt.
    if (entry !== queue.running || !entry.abort.signal.aborted) this.driver.cancelled(sessionId, entry);
    if (entry === queue.running) entry.abort.abort();
    else this.driver.publish(sessionId, entry, { state: 'cancelled', stopReason: 'cancelled', endedAt: this.clock.now() });
    return true;
  }

  /** Holds each admitted prompt until `gate` resolves for it (the ledger registers its record's write). */
  gateAdmissions(gate: AdmissionGate): void {
    this.admissionGate = gate;
  }

  /** Cooperatively cancels the running prompt only; queued prompts still run. */
  cancelRunning(sessionId: string): void {
    const entry = this.core.existing(sessionId)?.running;
    if (!entry || entry.abort.signal.aborted) return;
    entry.abort.abort();
    this.driver.cancelled(sessionId, entry);
  }

  /**
   * Resolves once no prompt of the session waits on its admission's record:
   * each was acknowledged or withdrawn. A teardown waits for it before
   * {@link closeSession}, so a prompt whose admission is refused gets no
   * `session_closed`, and one acknowledged gets it with all its records.
   */
  async admissionsDecided(sessionId: string): Promise<void> {
    // Settled, not all: one verdict's failure must not keep the teardown from closing the session.
    await Promise.allSettled(
      this.core
        .existing(sessionId)
        ?.pending()
        .map((entry) => entry.decided) ?? [],
    );
  }

  /**
   * Every queued or running prompt gets an `error` terminal (`session_closed`)
   * — one still held too: await {@link admissionsDecided} first.
   */
  closeSession(sessionId: string): void {
    for (const entry of this.core.existing(sessionId)?.pending() ?? []) {
      entry.abort.abort();
      clearTimeout(entry.deadline);
    }
    this.core.close(sessionId, { state: 'error', error: SESSION_CLOSED, endedAt: this.clock.now() });
  }

  /**
   * Closes admission for a rewind: `409 session_busy` while a prompt is queued
   * or running or another rewind is in progress. Pair with {@link endRewind}.
   */
  beginRewind(sessionId: string): void {
    if (!this.core.beginRewind(sessionId)) throw sessionBusy(sessionId);
  }

  /**
   * Reopens admission. After a successful rewind the overlay no longer speaks
   * for the session: it is cleared and scans begun before are stale; after a
   * failed one it is kept.
   */
  endRewind(sessionId: string, succeeded: boolean): void {
    this.core.endRewind(sessionId, succeeded);
  }

  /** Prompts queued and running across every session (read when metrics are scraped or status is asked). */
  promptCounts(): { queued: number; running: number } {
    return this.core.promptCounts();
  }

  pendingPrompts(sessionId: string): PendingPrompt[] {
    const queue = this.core.existing(sessionId);
    if (!queue) return [];
    return queue.pending().map((entry) => pendingPromptOf(entry, entry === queue.running));
  }

  /** Observes every prompt's admission, start and terminal, in every session (synchronously, as they happen). */
  onTransition(observer: TurnObserver): () => void {
    return this.core.transitions.subscribe(observer);
  }

  // --- BridgeOverlayProvider ---------------------------------------------------

  // The port's session lookup is the registry's; the daemon binds ClientIdGuard to the registry itself.
  hasSession(sessionId: string): boolean {
    return this.sessions.hasSession(sessionId);
  }

  isClientRegistered(sessionId: string, clientId: string): boolean {
    return this.sessions.isClientRegistered(sessionId, clientId);
  }
}
