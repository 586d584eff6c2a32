import type { TurnError } from './normalize-turn-error.js';
import type { TerminalTurnState } from './turn-state.js';
import type { TurnUsage } from './turn-usage.js';

/**
 * How a prompt ended, as the Session (or the bridge, for a terminal it makes
 * itself) knows it: raw values, before the wire limits are applied.
 *
 * @publicApi
 */
export interface TurnOutcome {
  promptId: string;
  state: TerminalTurnState;
  stopReason?: string;
  error?: TurnError;
  startedAt?: number;
  endedAt: number;
  promptText?: string;
  resultText?: string;
  originatorClientId?: string;
  /** What the turn's model responses used, as the agent reported them (absent: it reported nothing). */
  usage?: TurnUsage;
}
