import { setTimeout as delay } from 'node:timers/promises';
import { promptTextOf } from '../turns/rules/turn-fields.js';
import type { TurnTokens } from '../turns/rules/turn-usage.js';
import { AgentEngine, type EngineSession, type EngineTurnRequest, type EngineTurnResult } from './agent-engine.js';

/** Number of chunks the echo answer is streamed in. */
const ECHO_CHUNKS = 4;
/** UTF-16 code units a token stands for in the echo engine's usage (the usual rough rate for English text). */
const UNITS_PER_TOKEN = 4;

/**
 * The usage the echo engine reports for one answer: one model response whose
 * input is the prompt text and output the answer, a token per 4 UTF-16 code
 * units (rounded up). Deterministic, so hosts can test usage and budgets.
 */
export function echoUsage(promptText: string, answer: string): TurnTokens {
  const inputTokens = Math.ceil(promptText.length / UNITS_PER_TOKEN);
  const outputTokens = Math.ceil(answer.length / UNITS_PER_TOKEN);
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
}

/** Splits `text` into at most `parts` pieces without splitting a surrogate pair. */
export function splitForStreaming(text: string, parts: number): string[] {
  const units = Array.from(text);
  const size = Math.max(1, Math.ceil(units.length / parts));
  const out: string[] = [];
  for (let i = 0; i < units.length; i += size) out.push(units.slice(i, i + size).join(''));
  return out;
}

/**
 * The built-in offline engine: answers `echo: <promptText>` as streamed
 * chunks, spread over `delayMs` so queued and running states can be watched,
 * and stops early (`cancelled`) when the prompt is aborted. With
 * `reportUsage`, it reports {@link echoUsage} once the answer is streamed.
 *
 * @publicApi
 */
export class EchoEngine extends AgentEngine {
  readonly name = 'echo';

  constructor(
    private readonly delayMs = 0,
    private readonly reportUsage = false,
  ) {
    super();
  }

  async openSession(): Promise<EngineSession> {
    return {
      prompt: (request) => this.answer(request),
      close: async () => undefined,
    };
  }

  private async answer({ prompt, signal, onUpdate, onUsage }: EngineTurnRequest): Promise<EngineTurnResult> {
    const promptText = promptTextOf(prompt);
    const answer = `echo: ${promptText}`;
    const chunks = splitForStreaming(answer, ECHO_CHUNKS);
    for (const text of chunks) {
      if (signal.aborted) return { stopReason: 'cancelled' };
      if (this.delayMs > 0) {
        try {
          await delay(this.delayMs / chunks.length, undefined, { signal });
        } catch {
          return { stopReason: 'cancelled' };
        }
      }
      onUpdate({ kind: 'message', text });
    }
    // A budget this passes aborts the turn here, so it reads as stopped by it.
    if (this.reportUsage) onUsage?.({ kind: 'response', tokens: echoUsage(promptText, answer) });
    return { stopReason: signal.aborted ? 'cancelled' : 'end_turn' };
  }
}
