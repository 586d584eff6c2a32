import { integer } from '../common/settings/readers.js';
import type { Settings } from '../common/settings/setting.js';

/** How many `Idempotency-Key`s are remembered, and how long (docs/idempotency.md): runtime options, `TURNS_*` settings. */
export const IDEMPOTENCY_SETTINGS = {
  maxIdempotencyKeys: {
    name: 'MAX_IDEMPOTENCY_KEYS',
    ...integer(1, 10_000_000),
    default: 10_000,
    limit: 'maxIdempotencyKeys',
    doc: '`Idempotency-Key`s remembered per daemon, the oldest first out',
  },
  idempotencyTtlMs: {
    name: 'IDEMPOTENCY_TTL_MS',
    ...integer(1_000, 30 * 86_400_000),
    default: 86_400_000,
    limit: 'idempotencyTtlMs',
    doc: 'how long a key is remembered from its first use (1,000 ms to 30 days)',
  },
} as const satisfies Settings;
