import { limitPromptText } from '../turns/rules/turn-fields.js';
import type { SessionEventData } from '../wire/session-event.js';
import type { SettledTurnStatus } from '../turns/turn-status.js';

/** What an event of a prompt is made from. */
export interface PromptEventSource {
  promptId: string;
  promptText: string;
  queuedAt: number;
}

/** `pending_prompt_added`, for a prompt that waits behind another (docs/qwen-serve.md). */
export function pendingPromptAdded(sessionId: string, prompt: PromptEventSource) {
  const { promptId, queuedAt } = prompt;
  return { sessionId, promptId, text: limitPromptText(prompt.promptText).promptText, queuedAt };
}

/** `pending_prompt_started`, when a prompt that waited starts. */
export function pendingPromptStarted(sessionId: string, prompt: PromptEventSource) {
  return { sessionId, promptId: prompt.promptId, text: limitPromptText(prompt.promptText).promptText };
}

/** `pending_prompt_completed`, when a prompt that waited settles: `removed` if it never started. */
export function pendingPromptCompleted(sessionId: string, promptId: string, started: boolean) {
  return { sessionId, promptId, state: started ? ('completed' as const) : ('removed' as const) };
}

/**
 * The terminal event of a settled status: `turn_complete` with at least
 * `sessionId, promptId, stopReason`, or `turn_error` with `message` and
 * `code` beside the status's own `error`.
 */
export function terminalEvent(
  status: SettledTurnStatus,
): { type: 'turn_complete'; data: SessionEventData['turn_complete'] } | { type: 'turn_error'; data: SessionEventData['turn_error'] } {
  if (status.state === 'error') {
    return { type: 'turn_error', data: { ...status, message: status.error.message, code: status.error.code ?? 'error' } };
  }
  const stopReason = status.stopReason ?? (status.state === 'cancelled' ? 'cancelled' : 'end_turn');
  return { type: 'turn_complete', data: { ...status, stopReason } };
}

/** `session_update.data`: the ACP notification, wrapped with its session (docs/qwen-serve.md). */
export function sessionUpdate(sessionId: string, update: SessionEventData['session_update']['update']): SessionEventData['session_update'] {
  return { sessionId, update };
}
