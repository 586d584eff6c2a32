import { integer } from '../../common/settings/readers.js';
import { defaultsOf, type Settings } from '../../common/settings/setting.js';

/** The bounds of held turn requests (docs/waiting.md): `TurnsModule` options, `TURNS_*` settings of the daemon. */
export const WAIT_SETTINGS = {
  maxWaitMs: {
    name: 'MAX_WAIT_MS',
    ...integer(0, 300_000),
    default: 30_000,
    limit: 'maxWaitMs',
    doc: 'longest wait of a turn request (`waitMs`, `Prefer: wait`), at most 300000',
  },
  maxWaiters: {
    name: 'MAX_WAITERS',
    ...integer(1, 1_000_000),
    default: 10_000,
    limit: 'maxWaiters',
    doc: 'held turn requests at once; beyond → `503 too_many_waiters`',
  },
} as const satisfies Settings;

/** Defaults of the wait bounds. */
export const WAIT_DEFAULTS = defaultsOf(WAIT_SETTINGS);
