import type { SettledTurnStatus } from './turn-status.js';
import { compactStatus } from './turn-status.js';

/**
 * Combines the overlay's status (O) with the transcript's record (R) of the
 * same prompt. O is authoritative; R fills in the result and any prompt text
 * or originator O lacks. When O is a bridge-made `error` and R a settled
 * non-error (the deadline path), R's outcome wins and O keeps only its prompt
 * text and admission time. `usage` is R's when it has one: the Session's
 * count of the whole turn, which may include responses the agent reported
 * after a bridge-made terminal.
 */
export function mergeTurnStatus(overlay: SettledTurnStatus, persisted: SettledTurnStatus): SettledTurnStatus {
  const prompt = overlay.promptText !== undefined ? overlay : persisted;
  const originatorClientId = overlay.originatorClientId ?? persisted.originatorClientId;
  if (overlay.state === 'error' && persisted.state !== 'error') {
    return compactStatus({
      ...persisted,
      promptText: prompt.promptText,
      promptTextTruncated: prompt.promptTextTruncated,
      queuedAt: overlay.queuedAt,
      originatorClientId,
      usage: persisted.usage ?? overlay.usage,
    });
  }
  const result = overlay.resultText !== undefined ? overlay : persisted;
  return compactStatus({
    ...overlay,
    promptText: prompt.promptText,
    promptTextTruncated: prompt.promptTextTruncated,
    resultText: result.resultText,
    resultTruncated: result.resultTruncated,
    resultCode: result.resultCode,
    originatorClientId,
    usage: persisted.usage ?? overlay.usage,
  });
}

/** For `current`: the status whose `endedAt` is newer (the overlay's on a tie). */
export function newerSettled(overlay: SettledTurnStatus, persisted: SettledTurnStatus): SettledTurnStatus {
  return persisted.endedAt > overlay.endedAt ? persisted : overlay;
}
