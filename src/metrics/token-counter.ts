import { Counter, type Registry } from 'prom-client';
import { TURNS_CHANNELS } from '../telemetry/turns-channels.js';
import { TOKEN_KINDS, type TokenKind } from '../turns/rules/turn-usage.js';

/**
 * `turns_tokens_total{kind}`: the tokens turns' model responses used, as
 * their agents reported them, counted as they are reported (each token once;
 * see docs/operating.md#usage-and-token-budgets). Returns its unsubscribe.
 */
export function registerTokenCounter(registry: Registry): () => void {
  const tokens = new Counter({
    name: 'turns_tokens_total',
    help: "Tokens turns' model responses used, as their agents reported them, by kind (input, output, thought, cachedRead)",
    labelNames: ['kind'],
    registers: [registry],
  });
  const byKind = (Object.keys(TOKEN_KINDS) as TokenKind[]).map((kind) => [kind, tokens.labels(kind)] as const);
  return TURNS_CHANNELS.tokens.subscribe((growth) => {
    for (const [kind, child] of byKind) if (growth[kind] > 0) child.inc(growth[kind]);
  });
}
