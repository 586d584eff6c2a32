import { RESULT_TEXT_TRUNCATED, TURN_LIMITS } from '../turns/rules/limits.js';
import type { TurnOutcome } from '../turns/rules/turn-outcome.js';
import { limitTurnFields } from '../turns/rules/turn-fields.js';
import {
  compactStatus,
  TERMINAL_TURN_STATES,
  type SettledTurnStatus,
  type TerminalTurnState,
  type TurnError,
} from '../turns/turn-status.js';
import { readTurnUsage, type TurnUsage } from '../turns/rules/turn-usage.js';

/** `systemPayload` of a `system/turn_result` record. */
export interface TurnResultPayload {
  promptId: string;
  state: TerminalTurnState;
  stopReason?: string;
  error?: TurnError;
  startedAt?: number;
  cancelledAt?: number;
  endedAt: number;
  promptText?: string;
  promptTextTruncated?: true;
  resultText?: string;
  resultTruncated?: true;
  resultCode?: typeof RESULT_TEXT_TRUNCATED;
  originatorClientId?: string;
  /** What the turn's model responses used, as the agent reported them. */
  usage?: TurnUsage;
}

/** Builds the payload with the wire limits applied (and `cancelledAt` for a cancelled turn). */
export function buildTurnResultPayload(outcome: TurnOutcome): TurnResultPayload {
  return {
    ...limitTurnFields(outcome),
    state: outcome.state,
    ...(outcome.startedAt !== undefined && { startedAt: outcome.startedAt }),
    ...(outcome.state === 'cancelled' && { cancelledAt: outcome.endedAt }),
    endedAt: outcome.endedAt,
    ...(outcome.usage && { usage: outcome.usage }),
  };
}

const STATES = new Set<string>(TERMINAL_TURN_STATES);
const isTime = (v: unknown) => v === undefined || (Number.isSafeInteger(v) && (v as number) >= 0);
const isText = (v: unknown, max: number) => v === undefined || (typeof v === 'string' && v.length <= max);
const isFlag = (v: unknown) => v === undefined || v === true;

/**
 * True when a payload keeps the turn status rules and limits: the recorder skips an invalid one,
 * and the scanner ignores one it did not write.
 */
export function isValidTurnResultPayload(value: unknown): value is TurnResultPayload {
  if (typeof value !== 'object' || value === null) return false;
  const p = value as Record<string, unknown>;
  if (typeof p.promptId !== 'string' || p.promptId.length === 0 || p.promptId.length > TURN_LIMITS.identifier) return false;
  if (typeof p.state !== 'string' || !STATES.has(p.state)) return false;
  if (typeof p.endedAt !== 'number' || !isTime(p.endedAt)) return false;
  if (!isTime(p.startedAt) || !isTime(p.cancelledAt)) return false;
  if (!isText(p.stopReason, TURN_LIMITS.identifier) || !isText(p.originatorClientId, TURN_LIMITS.identifier)) return false;
  if (!isText(p.promptText, TURN_LIMITS.promptText) || !isText(p.resultText, TURN_LIMITS.resultText)) return false;
  if (!isFlag(p.promptTextTruncated) || !isFlag(p.resultTruncated)) return false;
  if ((p.resultTruncated === true) !== (p.resultCode === RESULT_TEXT_TRUNCATED)) return false;
  if ((p.state === 'error') !== (p.error !== undefined)) return false;
  if (p.usage !== undefined && readTurnUsage(p.usage) === undefined) return false;
  if (p.error !== undefined) {
    const e = p.error as Record<string, unknown>;
    if (typeof e !== 'object' || e === null) return false;
    if (typeof e.message !== 'string' || e.message.length > TURN_LIMITS.errorMessage) return false;
    if (!isText(e.code, TURN_LIMITS.errorCode) || !isFlag(e.messageTruncated) || !isFlag(e.codeTruncated)) return false;
  }
  return true;
}

/** The persisted-only turn status of a payload: no `queuedAt`, which only the overlay knows. */
export function turnStatusFromPayload(sessionId: string, p: TurnResultPayload): SettledTurnStatus {
  // A valid payload carries `error` exactly when its state is `error`.
  return compactStatus({
    sessionId,
    state: p.state,
    promptId: p.promptId,
    promptText: p.promptText,
    promptTextTruncated: p.promptTextTruncated,
    startedAt: p.startedAt,
    endedAt: p.endedAt,
    stopReason: p.stopReason,
    error: p.error,
    resultText: p.resultText,
    resultTruncated: p.resultTruncated,
    resultCode: p.resultCode,
    originatorClientId: p.originatorClientId,
    usage: p.usage && readTurnUsage(p.usage),
  } as SettledTurnStatus);
}
