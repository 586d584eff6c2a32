import type { PromptBlock } from '../turns/rules/turn-fields.js';
import type { EngineUpdate } from '../engines/agent-engine.js';
import type { ChatRecordingService } from '../transcript/chat-recording.service.js';
import { TURN_RESULT_SUBTYPE, type MessagePart, type RecordedIdempotency } from '../transcript/transcript-record.js';
import type { TurnOutcome } from '../turns/rules/turn-outcome.js';
import { buildTurnResultPayload, isValidTurnResultPayload } from '../transcript/turn-result-payload.js';

/**
 * Writes one turn into the transcript in qwen-code's record shapes: the user
 * record, model records (consecutive text and thought chunks merged; a tool
 * call closes a record), tool results, and the closing `system/turn_result`.
 * Appends are serialized by the recorder, so records keep the order of events.
 */
export class TurnTranscriptWriter {
  private parts: MessagePart[] = [];

  constructor(
    private readonly recorder: ChatRecordingService,
    private readonly sessionId: string,
    private readonly promptId: string,
  ) {}

  async user(prompt: readonly PromptBlock[], idempotency?: RecordedIdempotency): Promise<void> {
    const parts = prompt.flatMap((b): MessagePart[] => (b.type === 'text' && typeof b.text === 'string' ? [{ text: b.text }] : []));
    await this.recorder.append(this.sessionId, {
      type: 'user',
      promptId: this.promptId,
      message: { role: 'user', parts },
      ...(idempotency && { idempotency }),
    });
  }

  update(update: EngineUpdate): void {
    switch (update.kind) {
      case 'message':
      case 'thought': {
        const thought = update.kind === 'thought';
        const last = this.parts.at(-1);
        if (last && 'text' in last && (last.thought === true) === thought) last.text += update.text;
        else this.parts.push(thought ? { text: update.text, thought: true } : { text: update.text });
        return;
      }
      case 'tool_call':
        this.parts.push({ functionCall: { id: update.toolCallId, name: update.title, args: update.rawInput ?? {} } });
        this.flush();
        return;
      case 'tool_call_update':
        if (update.status === 'completed' || update.status === 'failed') {
          const response = { status: update.status, output: update.output ?? '' };
          void this.recorder.append(this.sessionId, {
            type: 'tool_result',
            promptId: this.promptId,
            message: { role: 'user', parts: [{ functionResponse: { id: update.toolCallId, name: update.toolCallId, response } }] },
          });
        }
        return;
      default: {
        const exhaustive: never = update;
        return exhaustive;
      }
    }
  }

  /** Writes the model record in progress, if any. */
  flush(): void {
    if (this.parts.length > 0) {
      void this.recorder.append(this.sessionId, {
        type: 'assistant',
        promptId: this.promptId,
        message: { role: 'model', parts: this.parts },
      });
    }
    this.parts = [];
  }

  /** The one `turn_result` of the turn; an invalid payload is skipped, not written. */
  async result(outcome: TurnOutcome): Promise<void> {
    this.flush();
    const payload = buildTurnResultPayload(outcome);
    if (!isValidTurnResultPayload(payload)) return;
    await this.recorder.append(this.sessionId, {
      type: 'system',
      subtype: TURN_RESULT_SUBTYPE,
      promptId: this.promptId,
      systemPayload: { ...payload },
    });
  }
}
