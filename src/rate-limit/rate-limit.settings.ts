import { flag, INT32_MAX, integer, milliseconds } from '../common/settings/readers.js';
import type { Settings } from '../common/settings/setting.js';

const requests = integer(1, INT32_MAX);

/** The peer's rate limits (docs/operating.md#rate-limits): off unless `--rate-limit`; a budget per tier per window. */
export const RATE_LIMIT_SETTINGS = {
  rateLimit: {
    name: 'RATE_LIMIT',
    ...flag,
    // `--rate-limit` alone, as the peer's flag.
    switch: true,
    default: false,
    doc: 'limit requests per client and window in three tiers, as `qwen serve --rate-limit` does; over a budget → `429 rate_limit_exceeded` (see [Operating](operating.md#rate-limits))',
  },
  rateLimitPrompt: {
    name: 'RATE_LIMIT_PROMPT',
    ...requests,
    default: 10,
    doc: 'prompts (`POST /session/:id/prompt`) per client and window',
  },
  rateLimitMutation: {
    name: 'RATE_LIMIT_MUTATION',
    ...requests,
    default: 30,
    doc: 'other non-`GET`/`HEAD` requests per client and window',
  },
  rateLimitRead: { name: 'RATE_LIMIT_READ', ...requests, default: 120, doc: '`GET`/`HEAD` requests per client and window' },
  rateLimitWindowMs: {
    name: 'RATE_LIMIT_WINDOW_MS',
    // Redis counts windows in whole seconds (rate-limiter-flexible): under one second it would never expire.
    ...milliseconds(1_000),
    default: 60_000,
    doc: 'the window of the three budgets (in cluster mode counted in whole seconds, rounded down)',
  },
} as const satisfies Settings;

/** The rate limits in force. */
export interface RateLimitSettings {
  rateLimitPrompt: number;
  rateLimitMutation: number;
  rateLimitRead: number;
  rateLimitWindowMs: number;
}
