/**
 * Tokens by kind, as turns/rules/turn-usage.ts's `TOKEN_KINDS` names them: a file of its own, Node-free, because the
 * published client's build takes turn-usage.ts (telemetry imports no feature, so the type is declared here).
 */
export type TokenCounts = Record<'input' | 'output' | 'thought' | 'cachedRead', number>;
