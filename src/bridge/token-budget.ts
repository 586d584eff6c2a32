import type { TurnError } from '../turns/rules/normalize-turn-error.js';
import type { TurnUsage } from '../turns/rules/turn-usage.js';

/**
 * The error a turn ends with once its tokens pass its budget; also the reason
 * its abort signal carries, so the Session records the agent's cooperative
 * stop as this error, not as a `cancelled` that would supersede it
 * (docs/operating.md#usage-and-token-budgets).
 */
export const TOKEN_BUDGET_EXCEEDED: Readonly<TurnError> = Object.freeze({
  message: 'Token budget exceeded',
  code: 'token_budget_exceeded',
});

/**
 * The token budget a prompt gets: the smaller of the daemon's
 * (`TURNS_PROMPT_MAX_TOKENS`) and the request's `maxTokens`; either alone
 * when the other is unset. A request can only narrow: unlike `deadlineMs`, it
 * also narrows "no budget", since a budget only ever spends less.
 */
export function effectiveMaxTokens(serverMax: number | undefined, requestedMax: number | undefined): number | undefined {
  if (serverMax === undefined) return requestedMax;
  return requestedMax === undefined ? serverMax : Math.min(serverMax, requestedMax);
}

/** True once the turn's `totalTokens` passes (is more than) its budget. */
export function passedBudget(usage: TurnUsage, maxTokens: number | undefined): boolean {
  return maxTokens !== undefined && usage.totalTokens > maxTokens;
}
