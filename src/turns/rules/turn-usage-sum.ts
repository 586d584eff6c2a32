import { readCostUsd, TOKEN_FIELDS, type TurnTokens, type TurnUsage } from './turn-usage.js';

/**
 * One usage report of an engine (see `EngineTurnRequest.onUsage`):
 * - `response`: the tokens of one model response (`qwen --acp`'s `_meta.usage`); summed over the turn;
 * - `turn`: the turn's total (ACP `PromptResponse.usage`); when given, it replaces the sum of responses;
 * - `cost`: what the turn cost so far, in US dollars (from ACP `usage_update.cost`); the largest one reported counts.
 *
 * @publicApi
 */
export type UsageReport =
  { kind: 'response'; tokens: TurnTokens } | { kind: 'turn'; tokens: TurnTokens } | { kind: 'cost'; costUsd: number };

/** `a` and `b` combined field by field (a field either has is kept). */
function combine(a: TurnTokens | undefined, b: TurnTokens, how: (x: number, y: number) => number): TurnTokens {
  const out: Partial<Record<keyof TurnTokens, number>> = {};
  for (const field of TOKEN_FIELDS) {
    const [x, y] = [a?.[field], b[field]];
    if (x !== undefined || y !== undefined) out[field] = x === undefined ? y : y === undefined ? x : how(x, y);
  }
  return out as TurnTokens;
}

/**
 * A turn's usage from its reports (docs/operating.md#usage-and-token-budgets):
 * the responses' tokens summed, unless the agent reported the turn's total,
 * which then replaces that sum (whenever it came: both sources are never
 * added); the cost is the largest reported (a turn's cost only grows). The
 * result does not depend on the order of the reports.
 *
 * @publicApi
 */
export class TurnUsageSum {
  private responses?: TurnTokens;
  private turn?: TurnTokens;
  private costUsd?: number;

  /** Takes one report; true when the usage changed. */
  add(report: UsageReport): boolean {
    const before = this.total;
    if (report.kind === 'response') this.responses = combine(this.responses, report.tokens, (x, y) => x + y);
    // One total a turn in practice; were there more, the largest of each count, so the order never matters.
    else if (report.kind === 'turn') this.turn = combine(this.turn, report.tokens, Math.max);
    else if (readCostUsd(report.costUsd) !== undefined) this.costUsd = Math.max(this.costUsd ?? 0, report.costUsd);
    return JSON.stringify(before) !== JSON.stringify(this.total);
  }

  /** The usage so far; `undefined` while nothing was reported. */
  get total(): TurnUsage | undefined {
    const tokens = this.turn ?? this.responses;
    if (!tokens && this.costUsd === undefined) return undefined;
    const counted = tokens ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
    return this.costUsd === undefined ? { ...counted } : { ...counted, costUsd: this.costUsd };
  }
}
