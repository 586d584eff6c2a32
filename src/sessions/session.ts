import type { Clock } from '../common/clock.js';
import { normalizeTurnError } from '../turns/rules/normalize-turn-error.js';
import type { AgentEngine, EngineCloseOptions, EngineSession, EngineUpdate, UsageReport } from '../engines/agent-engine.js';
import { FinalAnswerAccumulator } from '../engines/final-answer-accumulator.js';
import type { SessionEventBus } from '../events/session-event-bus.js';
import type { ChatRecordingService } from '../transcript/chat-recording.service.js';
import type { SessionPrompt } from '../bridge/session-runner.js';
import type { TurnOutcome } from '../turns/rules/turn-outcome.js';
import { TurnTranscriptWriter } from './turn-transcript-writer.js';
import type { Workspace } from './workspace.js';
import { sessionUpdate } from '../bridge/turn-events.js';
import { streamedUpdate } from './streamed-update.js';
import { TurnUsageSum } from '../turns/rules/turn-usage-sum.js';
import { TOKEN_BUDGET_EXCEEDED } from '../bridge/token-budget.js';

export interface SessionDependencies {
  engine: AgentEngine;
  recorder: ChatRecordingService;
  events: SessionEventBus;
  clock: Clock;
}

/**
 * A live agent session: runs one prompt at a time through its engine, streams
 * `session_update` events, and is the only writer of its transcript (through
 * a {@link TurnTranscriptWriter} per prompt): exactly one `system/turn_result`
 * per prompt that reaches it.
 */
export class Session {
  private engineSession?: Promise<EngineSession>;
  /** Serializes engine use: a prompt released by a deadline may still be running. */
  private idle: Promise<unknown> = Promise.resolve();

  constructor(
    readonly id: string,
    readonly workspace: Workspace,
    readonly createdAt: number,
    private readonly deps: SessionDependencies,
    private readonly resumed = false,
  ) {}

  /** Runs one prompt to its outcome. Never rejects: engine failures become `error`. */
  prompt(input: SessionPrompt, signal: AbortSignal): Promise<TurnOutcome> {
    const run = this.idle.then(() => this.run(input, signal));
    this.idle = run.catch(() => undefined);
    return run;
  }

  /** Stops the engine; `immediate` when the session moved to another node (see {@link EngineCloseOptions}). */
  async close(options: EngineCloseOptions = {}): Promise<void> {
    const engineSession = this.engineSession;
    this.engineSession = undefined;
    await (await engineSession?.catch(() => undefined))?.close(options).catch(() => undefined);
  }

  private openEngine(): Promise<EngineSession> {
    this.engineSession ??= this.deps.engine.openSession({ sessionId: this.id, cwd: this.workspace.cwd, resume: this.resumed });
    // A failed open is retried by the next prompt rather than cached.
    this.engineSession.catch(() => (this.engineSession = undefined));
    return this.engineSession;
  }

  private async run(input: SessionPrompt, signal: AbortSignal): Promise<TurnOutcome> {
    const { events, clock } = this.deps;
    const { promptId, originatorClientId } = input;
    const transcript = new TurnTranscriptWriter(this.deps.recorder, this.id, promptId);
    const answer = new FinalAnswerAccumulator();
    const usage = new TurnUsageSum();
    await transcript.user(input.prompt, input.idempotency);
    // The prompt is echoed as the ACP user message, as the peer's stream shows it.
    for (const content of input.prompt) {
      events.publish(this.id, 'session_update', {
        promptId,
        data: sessionUpdate(this.id, { sessionUpdate: 'user_message_chunk', content }),
        originatorClientId,
      });
    }

    const onUpdate = (update: EngineUpdate) => {
      answer.push(update);
      input.onUpdate?.(update);
      transcript.update(update);
      events.publish(this.id, 'session_update', {
        promptId,
        data: sessionUpdate(this.id, streamedUpdate(update)),
        originatorClientId,
      });
    };
    const onUsage = (report: UsageReport) => {
      if (usage.add(report)) input.onUsage?.(usage.total!);
    };
    // Stopped because its budget was spent: the agent's cooperative stop is that error, not a `cancelled` that supersedes it.
    const stopped = (): Omit<TurnOutcome, 'endedAt'> =>
      signal.reason === TOKEN_BUDGET_EXCEEDED
        ? { promptId, state: 'error', error: { ...TOKEN_BUDGET_EXCEEDED } }
        : { promptId, state: 'cancelled', stopReason: 'cancelled' };
    let outcome: Omit<TurnOutcome, 'endedAt'>;
    try {
      const engine = await this.openEngine();
      const { requestPermission } = input;
      const { stopReason } = await engine.prompt({
        prompt: input.prompt,
        signal,
        onUpdate,
        onUsage,
        ...(requestPermission && { requestPermission }),
      });
      // The engine's own stop reason decides: an abort is only a request, and an
      // agent may still finish its turn (the deadline path relies on that).
      outcome = stopReason === 'cancelled' ? { ...stopped(), stopReason } : { promptId, state: 'completed', stopReason };
    } catch (error) {
      outcome = signal.aborted ? stopped() : { promptId, state: 'error', error: normalizeTurnError(error, 'engine_error') };
    }
    const result: TurnOutcome = {
      ...outcome,
      startedAt: input.startedAt,
      endedAt: clock.now(),
      promptText: input.promptText,
      ...(answer.resultText !== undefined && { resultText: answer.resultText }),
      ...(originatorClientId !== undefined && { originatorClientId }),
      ...(usage.total && { usage: usage.total }),
    };
    await transcript.result(result);
    return result;
  }
}
