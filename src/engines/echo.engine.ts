import { setTimeout as delay } from 'node:timers/promises';
import { promptTextOf } from '../turns/rules/turn-fields.js';
import { AgentEngine, type EngineSession, type EngineTurnRequest, type EngineTurnResult } from './agent-engine.js';

/** Number of chunks the echo answer is streamed in. */
const ECHO_CHUNKS = 4;

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
 * and stops early (`cancelled`) when the prompt is aborted.
 *
 * @publicApi
 */
export class EchoEngine extends AgentEngine {
  readonly name = 'echo';

  constructor(private readonly delayMs = 0) {
    super();
  }

  async openSession(): Promise<EngineSession> {
    return {
      prompt: (request) => this.answer(request),
      close: async () => undefined,
    };
  }

  private async answer({ prompt, signal, onUpdate }: EngineTurnRequest): Promise<EngineTurnResult> {
    const chunks = splitForStreaming(`echo: ${promptTextOf(prompt)}`, ECHO_CHUNKS);
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
    return { stopReason: signal.aborted ? 'cancelled' : 'end_turn' };
  }
}
