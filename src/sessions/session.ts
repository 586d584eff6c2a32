import type { Clock } from '../common/clock.js';
import { normalizeTurnError } from '../common/normalize-turn-error.js';
import type { PromptBlock } from '../common/turn-fields.js';
import type { AgentEngine, EngineSession, EngineUpdate } from '../engines/agent-engine.js';
import { FinalAnswerAccumulator } from '../engines/final-answer-accumulator.js';
import type { SessionEventBus } from '../events/session-event-bus.js';
import type { ChatRecordingService } from '../transcript/chat-recording.service.js';
import type { MessagePart } from '../transcript/transcript-record.js';
import { TURN_RESULT_SUBTYPE } from '../transcript/transcript-record.js';
import { buildTurnResultPayload, isValidTurnResultPayload, type TurnOutcome } from '../transcript/turn-result-payload.js';
import type { Workspace } from './workspace.js';

/** One prompt as the bridge dispatches it into the Session. */
export interface SessionPrompt {
  promptId: string;
  prompt: readonly PromptBlock[];
  promptText: string;
  startedAt: number;
  originatorClientId?: string;
}

export interface SessionDependencies {
  engine: AgentEngine;
  recorder: ChatRecordingService;
  events: SessionEventBus;
  clock: Clock;
}

/** The ACP `session/update` shape of an engine update, for SSE subscribers. */
function toWireUpdate(update: EngineUpdate): Record<string, unknown> {
  switch (update.kind) {
    case 'message':
      return { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: update.text } };
    case 'thought':
      return { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: update.text } };
    case 'tool_call':
      return { sessionUpdate: 'tool_call', toolCallId: update.toolCallId, title: update.title, status: update.status };
    case 'tool_call_update':
      return { sessionUpdate: 'tool_call_update', toolCallId: update.toolCallId, status: update.status };
    default: {
      const exhaustive: never = update;
      return exhaustive;
    }
  }
}

/**
 * A live agent session: runs one prompt at a time through its engine, streams
 * `session_update` events, and is the only writer of its transcript — the
 * user record, the model's records, and exactly one `system/turn_result` per
 * prompt that reaches it.
 */
export class Session {
  readonly clients = new Set<string>();
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

  async close(): Promise<void> {
    const engineSession = this.engineSession;
    this.engineSession = undefined;
    await (await engineSession?.catch(() => undefined))?.close().catch(() => undefined);
  }

  private openEngine(): Promise<EngineSession> {
    this.engineSession ??= this.deps.engine.openSession({ sessionId: this.id, cwd: this.workspace.cwd, resume: this.resumed });
    // A failed open is retried by the next prompt rather than cached.
    this.engineSession.catch(() => (this.engineSession = undefined));
    return this.engineSession;
  }

  private async run(input: SessionPrompt, signal: AbortSignal): Promise<TurnOutcome> {
    const { recorder, events, clock } = this.deps;
    const { promptId, originatorClientId } = input;
    await recorder.append(this.id, {
      type: 'user',
      promptId,
      message: { role: 'user', parts: input.prompt.flatMap((b): MessagePart[] => (b.type === 'text' && typeof b.text === 'string' ? [{ text: b.text }] : [])) },
    });

    const answer = new FinalAnswerAccumulator();
    let parts: MessagePart[] = [];
    const flushParts = () => {
      if (parts.length > 0) void recorder.append(this.id, { type: 'assistant', promptId, message: { role: 'model', parts } });
      parts = [];
    };
    const onUpdate = (update: EngineUpdate) => {
      answer.push(update);
      events.publish(this.id, 'session_update', { promptId, data: toWireUpdate(update), originatorClientId });
      switch (update.kind) {
        case 'message':
        case 'thought': {
          const last = parts.at(-1);
          const thought = update.kind === 'thought';
          if (last && 'text' in last && (last.thought === true) === thought) last.text += update.text;
          else parts.push(thought ? { text: update.text, thought: true } : { text: update.text });
          return;
        }
        case 'tool_call':
          parts.push({ functionCall: { id: update.toolCallId, name: update.title, args: update.rawInput ?? {} } });
          flushParts();
          return;
        case 'tool_call_update':
          if (update.status === 'completed' || update.status === 'failed') {
            void recorder.append(this.id, {
              type: 'tool_result',
              promptId,
              message: { role: 'user', parts: [{ functionResponse: { id: update.toolCallId, name: update.toolCallId, response: { status: update.status, output: update.output ?? '' } } }] },
            });
          }
          return;
      }
    };

    let outcome: Omit<TurnOutcome, 'endedAt'>;
    try {
      const engine = await this.openEngine();
      const { stopReason } = await engine.prompt({ prompt: input.prompt, signal, onUpdate });
      // The engine's own stop reason decides: an abort is only a request, and an
      // agent may still finish its turn (the deadline path relies on that).
      outcome = { promptId, state: stopReason === 'cancelled' ? 'cancelled' : 'completed', stopReason };
    } catch (error) {
      outcome = signal.aborted
        ? { promptId, state: 'cancelled', stopReason: 'cancelled' }
        : { promptId, state: 'error', error: normalizeTurnError(error, 'engine_error') };
    }
    flushParts();
    const result: TurnOutcome = {
      ...outcome,
      startedAt: input.startedAt,
      endedAt: clock.now(),
      promptText: input.promptText,
      ...(answer.resultText !== undefined && { resultText: answer.resultText }),
      ...(originatorClientId !== undefined && { originatorClientId }),
    };
    const payload = buildTurnResultPayload(result);
    if (isValidTurnResultPayload(payload)) {
      await recorder.append(this.id, { type: 'system', subtype: TURN_RESULT_SUBTYPE, promptId, systemPayload: { ...payload } });
    }
    return result;
  }
}
