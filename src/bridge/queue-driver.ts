import type { Clock } from '../common/clock.js';
import type { EnginePermissionRequest } from '../engines/agent-engine.js';
import type { SessionEventBus } from '../events/session-event-bus.js';
import type { TurnOutcome } from '../turns/rules/turn-outcome.js';
import type { TurnUsage } from '../turns/rules/turn-usage.js';
import { DEADLINE_EXCEEDED, FORWARD_FAILED } from './bridge-errors.js';
import type { LiveEntry } from './prompt-queue.js';
import type { SessionQueueCore } from './session-queue-core.js';
import type { SessionPrompt, SessionRunner } from './session-runner.js';
import { passedBudget, TOKEN_BUDGET_EXCEEDED } from './token-budget.js';
import type { CountedUpdate } from './turn-activity.js';
import { countTurnTokens } from './turn-channel-observer.js';
import type { TurnHooks } from './turn-hooks.js';
import type { TurnSpans } from './turn-spans.js';
import type { TerminalFields } from './turn-status-projection.js';

/** What a {@link QueueDriver} drives, and whom it tells. */
export interface QueueDriverParts {
  core: SessionQueueCore<LiveEntry>;
  sessions: SessionRunner;
  events: SessionEventBus;
  clock: Clock;
  spans: TurnSpans;
  logger: { error(message: string): void };
  /** The queue's plug-in, read as each turn runs (it may register after the driver is made). */
  hooks(): TurnHooks | undefined;
}

/**
 * Runs the bridge's queue: dispatches each session's FIFO head into its Session, and ends a prompt through the
 * core's latch — its outcome, its deadline or its token budget, whichever comes first.
 */
export class QueueDriver {
  constructor(private readonly parts: QueueDriverParts) {}

  /** Dispatches the FIFO head into the Session when nothing is running. */
  pump(sessionId: string): void {
    const { core, sessions, spans, clock, logger } = this.parts;
    if (!sessions.hasSession(sessionId)) return;
    const entry = core.dispatch(sessionId);
    if (!entry) return;
    const run = spans.run(entry.promptId, () => sessions.run(sessionId, this.sessionPrompt(sessionId, entry), entry.abort.signal));
    Promise.resolve(run)
      .then((outcome) => outcome ?? Promise.reject(new Error('session is not live')))
      .catch((error: unknown): TurnOutcome => {
        // Running never rejects by contract; this is the forward-failure path.
        logger.error(`prompt forwarding failed: ${(error as Error)?.name ?? 'error'}`);
        return { promptId: entry.promptId, state: 'error', error: FORWARD_FAILED, endedAt: clock.now() };
      })
      .then((outcome) => {
        if (!this.publish(sessionId, entry, outcome)) core.settleLate(sessionId, entry, outcome);
        this.releaseAndPump(sessionId, entry);
      });
  }

  /**
   * An agent must not start a prompt whose admission may yet be refused (a 503 the client retries): it is held until
   * `gate` resolves, and withdrawn, never run nor announced, when it rejects; a removal or deadline meanwhile waits.
   */
  hold(sessionId: string, entry: LiveEntry, gate: Promise<void>): void {
    entry.held = true;
    entry.decided = gate.then(
      () => {
        entry.held = false;
        const terminal = entry.heldTerminal;
        if (terminal) {
          if (entry.removed) this.cancelled(sessionId, entry);
          this.publish(sessionId, entry, terminal);
        }
        this.pump(sessionId);
      },
      // Never acknowledged (its client is answered 503): no terminal, no event, no webhook, no ledger record.
      () => {
        clearTimeout(entry.deadline);
        if (this.parts.core.withdraw(sessionId, entry)) this.pump(sessionId);
      },
    );
  }

  /** The prompt's deadline passed: it ends `error prompt_deadline_exceeded`, and the FIFO moves on. */
  expire(sessionId: string, entry: LiveEntry): void {
    const terminal: TerminalFields = { state: 'error', error: DEADLINE_EXCEEDED, endedAt: this.parts.clock.now() };
    // Its admission is still being recorded: the deadline's error waits for it (and is dropped if it is refused).
    if (entry.held) {
      entry.heldTerminal ??= terminal;
      return;
    }
    if (!this.publish(sessionId, entry, terminal)) return;
    // Release the FIFO and cancel best effort; the agent may still settle, and
    // its persisted outcome then supersedes this error on the poll surface.
    entry.abort.abort();
    this.releaseAndPump(sessionId, entry);
  }

  /** Through the latch: true when this terminal is the prompt's first. */
  publish(sessionId: string, entry: LiveEntry, terminal: TerminalFields): boolean {
    if (!this.parts.core.settle(sessionId, entry, terminal)) return false;
    clearTimeout(entry.deadline);
    return true;
  }

  releaseAndPump(sessionId: string, entry: LiveEntry): void {
    if (this.parts.core.release(sessionId, entry)) this.pump(sessionId);
  }

  /** Announces `prompt_cancelled`: once a prompt, when its cancel or removal is asked. */
  cancelled(sessionId: string, entry: LiveEntry): void {
    const { promptId, originatorClientId } = entry;
    this.parts.events.publish(sessionId, 'prompt_cancelled', { promptId, data: { sessionId, promptId }, originatorClientId });
  }

  /** The prompt as the Session runs it, with the turn's callbacks: its updates, its usage, and its questions to the hooks. */
  private sessionPrompt(sessionId: string, entry: LiveEntry): SessionPrompt {
    const { promptId, prompt, promptText, startedAt, originatorClientId, principal, idempotency } = entry;
    const onUpdate = (update: CountedUpdate) => this.parts.core.counted(sessionId, entry, update);
    const onUsage = (usage: TurnUsage) => this.usageReported(sessionId, entry, usage);
    const hooks = this.parts.hooks();
    // The hooks end a turn's requests as it settles; one asked after that (a normal end aborts nothing) is cancelled at once.
    const turnSignal = () => (entry.published ? AbortSignal.abort() : entry.abort.signal);
    const requestPermission =
      hooks &&
      ((request: EnginePermissionRequest) => hooks.ask({ sessionId, promptId, originatorClientId, principal }, request, turnSignal()));
    return { promptId, prompt, promptText, startedAt: startedAt!, originatorClientId, idempotency, onUpdate, onUsage, requestPermission };
  }

  /**
   * The running turn's usage grew: counted into the metrics (late reports too), shown to polls, and once it passes
   * the budget the turn ends `error token_budget_exceeded`; the abort carries that reason, so the agent's next
   * requests for approval are cancelled.
   */
  private usageReported(sessionId: string, entry: LiveEntry, usage: TurnUsage): void {
    countTurnTokens(entry, usage);
    if (entry.published) return;
    this.parts.core.counted(sessionId, entry, { usage });
    if (!passedBudget(usage, entry.maxTokens)) return;
    if (!this.publish(sessionId, entry, { state: 'error', error: TOKEN_BUDGET_EXCEEDED, endedAt: this.parts.clock.now() })) return;
    entry.abort.abort(TOKEN_BUDGET_EXCEEDED);
    this.releaseAndPump(sessionId, entry);
  }
}
