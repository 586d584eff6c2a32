import type { TurnError } from '../common/normalize-turn-error.js';
import type { RESULT_TEXT_TRUNCATED } from '../common/limits.js';

export type { TurnError };

/** Every state a polled prompt can report. */
export type TurnState = 'idle' | 'queued' | 'running' | 'completed' | 'cancelled' | 'error';

/** States after which a prompt never runs again. */
export type TerminalTurnState = Extract<TurnState, 'completed' | 'cancelled' | 'error'>;

/**
 * The answer of both turn routes (SPEC §4). Optional fields are absent, never
 * `null`; flags are present only when `true`; timestamps are epoch ms.
 */
export interface TurnStatus {
  sessionId: string;
  state: TurnState;
  promptId?: string;
  promptText?: string;
  promptTextTruncated?: true;
  queuedAt?: number;
  startedAt?: number;
  endedAt?: number;
  stopReason?: string;
  error?: TurnError;
  resultText?: string;
  resultTruncated?: true;
  resultCode?: typeof RESULT_TEXT_TRUNCATED;
  originatorClientId?: string;
}

export function isTerminalState(state: TurnState): state is TerminalTurnState {
  switch (state) {
    case 'completed':
    case 'cancelled':
    case 'error':
      return true;
    case 'idle':
    case 'queued':
    case 'running':
      return false;
    default: {
      const exhaustive: never = state;
      return exhaustive;
    }
  }
}

/** Drops keys whose value is `undefined`, so optional fields are truly absent. */
export function compactStatus(status: TurnStatus): TurnStatus {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(status)) if (value !== undefined) out[key] = value;
  return out as unknown as TurnStatus;
}
