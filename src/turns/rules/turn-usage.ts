import type { TokenCounts } from '../../telemetry/token-counts.js';

/**
 * Tokens of one model response, or of a whole turn, as an agent reports them
 * (ACP's `Usage`, and the `_meta.usage` that `qwen --acp` sends).
 *
 * @publicApi
 */
export interface TurnTokens {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  thoughtTokens?: number;
  cachedReadTokens?: number;
}

/**
 * What a turn cost: the sum over its model responses as the agent reported
 * them, and its cost in US dollars when the agent reported one
 * (docs/operating.md#usage-and-token-budgets).
 *
 * @publicApi
 */
export interface TurnUsage extends TurnTokens {
  costUsd?: number;
}

/** The token fields, in the order the wire shows them; the optional ones last. */
export const TOKEN_FIELDS = ['inputTokens', 'outputTokens', 'totalTokens', 'thoughtTokens', 'cachedReadTokens'] as const;

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isCost = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/**
 * The tokens an agent (or a record) reports, or `undefined` when it holds no
 * count: read as plain data, never trusted. A count that is not a
 * non-negative safe integer is left out; `totalTokens`, when missing, is
 * input + output + thought.
 */
export function readTurnTokens(value: unknown): TurnTokens | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const fields = value as Record<string, unknown>;
  const counts = Object.fromEntries(TOKEN_FIELDS.flatMap((field) => (isCount(fields[field]) ? [[field, fields[field]]] : [])));
  if (Object.keys(counts).length === 0) return undefined;
  const { inputTokens = 0, outputTokens = 0, thoughtTokens } = counts as Partial<TurnTokens>;
  return {
    inputTokens,
    outputTokens,
    totalTokens: (counts as Partial<TurnTokens>).totalTokens ?? inputTokens + outputTokens + (thoughtTokens ?? 0),
    ...(thoughtTokens !== undefined && { thoughtTokens }),
    ...((counts as Partial<TurnTokens>).cachedReadTokens !== undefined && { cachedReadTokens: counts.cachedReadTokens }),
  };
}

/** A recorded usage (ledger, transcript), or `undefined` when it is not one: tokens, and a cost when valid. */
export function readTurnUsage(value: unknown): TurnUsage | undefined {
  const tokens = readTurnTokens(value);
  if (!tokens) return undefined;
  const costUsd = (value as { costUsd?: unknown }).costUsd;
  return isCost(costUsd) ? { ...tokens, costUsd } : tokens;
}

/** A valid US-dollar amount, or `undefined`. */
export function readCostUsd(value: unknown): number | undefined {
  return isCost(value) ? value : undefined;
}

/** The token kinds the metrics count (`turns_tokens_total{kind}`), by the field each reads: those the tokens channel carries. */
export const TOKEN_KINDS = {
  input: 'inputTokens',
  output: 'outputTokens',
  thought: 'thoughtTokens',
  cachedRead: 'cachedReadTokens',
} as const satisfies Record<keyof TokenCounts, keyof TurnTokens>;

/** @publicApi */
export type TokenKind = keyof typeof TOKEN_KINDS;

/**
 * Counts `after` into `counted` (per kind, the most counted so far) and
 * returns how far each kind grew: what a counter adds. A sum a turn's total
 * later lowers is never taken back, nor counted twice.
 */
export function countTokens(counted: Record<TokenKind, number>, after: TurnTokens): Record<TokenKind, number> {
  const growth = { input: 0, output: 0, thought: 0, cachedRead: 0 };
  for (const [kind, field] of Object.entries(TOKEN_KINDS) as Array<[TokenKind, keyof TurnTokens]>) {
    const value = after[field] ?? 0;
    growth[kind] = Math.max(0, value - counted[kind]);
    counted[kind] = Math.max(counted[kind], value);
  }
  return growth;
}
