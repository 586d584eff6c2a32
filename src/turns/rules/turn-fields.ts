import { RESULT_TEXT_TRUNCATED, TURN_LIMITS } from './limits.js';
import { limitTurnError, type TurnError } from './normalize-turn-error.js';
import { truncateCodeUnits } from './truncate-code-units.js';

/**
 * A prompt content block as admitted over HTTP (and as ACP names them).
 *
 * @publicApi
 */
export type PromptBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; data?: string; mimeType?: string; uri?: string }
  | { type: string; [key: string]: unknown };

/**
 * The `promptText` of a prompt: its first non-empty text block, `"[image]"`
 * when it has none but carries an image, else `""`.
 *
 * @publicApi
 */
export function promptTextOf(blocks: readonly PromptBlock[]): string {
  for (const block of blocks) {
    if (block.type === 'text' && typeof block.text === 'string' && block.text.length > 0) return block.text;
  }
  return blocks.some((block) => block.type === 'image') ? '[image]' : '';
}

/** The size of a prompt: UTF-16 code units of every string its blocks carry (text, data, uri…). */
export function promptChars(blocks: readonly PromptBlock[]): number {
  let total = 0;
  for (const block of blocks) for (const value of Object.values(block)) if (typeof value === 'string') total += value.length;
  return total;
}

export function limitPromptText(text: string): { promptText: string; promptTextTruncated?: true } {
  const cut = truncateCodeUnits(text, TURN_LIMITS.promptText);
  return cut.truncated ? { promptText: cut.text, promptTextTruncated: true } : { promptText: cut.text };
}

/** `resultCode` accompanies `resultTruncated`, always and only. */
export function limitResultText(text: string): {
  resultText: string;
  resultTruncated?: true;
  resultCode?: typeof RESULT_TEXT_TRUNCATED;
} {
  const cut = truncateCodeUnits(text, TURN_LIMITS.resultText);
  return cut.truncated ? { resultText: cut.text, resultTruncated: true, resultCode: RESULT_TEXT_TRUNCATED } : { resultText: cut.text };
}

/** Identifiers (`promptId`, `stopReason`, `originatorClientId`) are cut silently. */
export function limitIdentifier(value: string): string {
  return truncateCodeUnits(value, TURN_LIMITS.identifier).text;
}

/** The text fields of a turn before the wire limits. */
export interface RawTurnFields {
  promptId: string;
  promptText?: string;
  originatorClientId?: string;
  stopReason?: string;
  error?: TurnError;
  resultText?: string;
}

/** The same fields within the wire limits, with their flags; absent stays absent. */
export interface LimitedTurnFields {
  promptId: string;
  promptText?: string;
  promptTextTruncated?: true;
  originatorClientId?: string;
  stopReason?: string;
  error?: TurnError;
  resultText?: string;
  resultTruncated?: true;
  resultCode?: typeof RESULT_TEXT_TRUNCATED;
}

/**
 * Applies every field limit of a turn status in one place: what the bridge
 * serves and what the transcript records are cut by the same rule.
 *
 * @publicApi
 */
export function limitTurnFields(raw: RawTurnFields): LimitedTurnFields {
  return {
    promptId: limitIdentifier(raw.promptId),
    ...(raw.promptText !== undefined && limitPromptText(raw.promptText)),
    ...(raw.originatorClientId !== undefined && { originatorClientId: limitIdentifier(raw.originatorClientId) }),
    ...(raw.stopReason !== undefined && { stopReason: limitIdentifier(raw.stopReason) }),
    ...(raw.error !== undefined && { error: limitTurnError(raw.error) }),
    ...(raw.resultText !== undefined && limitResultText(raw.resultText)),
  };
}
