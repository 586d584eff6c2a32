import type { EngineUpdate } from './agent-engine.js';

/**
 * Tracks the raw final main answer of a turn: top-level, non-thought
 * text of the last response block with no tool call. A tool call ends a block
 * and discards the text before it; thoughts and tool output never count.
 *
 * @publicApi
 */
export class FinalAnswerAccumulator {
  private chunks: string[] = [];

  push(update: EngineUpdate): void {
    switch (update.kind) {
      case 'message':
        this.chunks.push(update.text);
        return;
      case 'tool_call':
        this.chunks = [];
        return;
      case 'thought':
      case 'tool_call_update':
        return;
      default: {
        const exhaustive: never = update;
        return exhaustive;
      }
    }
  }

  /** The final answer so far; `undefined` when the last block has no text. */
  get resultText(): string | undefined {
    const text = this.chunks.join('');
    return text.length > 0 ? text : undefined;
  }
}
