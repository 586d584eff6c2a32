import type { IdempotencyLimits } from './idempotency-store.js';

/** Defaults of SPEC §13: 10,000 keys per daemon, each remembered for a day. */
export const IDEMPOTENCY_DEFAULTS: IdempotencyLimits = { maxKeys: 10_000, ttlMs: 86_400_000 };
