import { integer, milliseconds } from '../common/settings/readers.js';
import type { SettingOptions, Settings } from '../common/settings/setting.js';
import { ACTIVITY_REFRESH_MS } from './turn-activity.js';

/** The prompt bridge's limits: runtime options, `TURNS_*` settings of the daemon. */
export const BRIDGE_SETTINGS = {
  promptDeadlineMs: {
    name: 'PROMPT_DEADLINE_MS',
    ...milliseconds(),
    limit: 'promptDeadlineMs',
    doc: "server deadline per prompt, from admission; a request's `deadlineMs` only narrows it",
  },
  promptMaxTokens: {
    name: 'PROMPT_MAX_TOKENS',
    ...integer(1, Number.MAX_SAFE_INTEGER),
    limit: 'promptMaxTokens',
    doc: "token budget per prompt: once a turn's `totalTokens` passes it, the turn ends `error token_budget_exceeded`; a request's `maxTokens` only narrows it",
  },
  maxPendingPrompts: {
    name: 'MAX_PENDING_PROMPTS',
    ...integer(1, 10_000),
    default: 5,
    limit: 'maxPendingPromptsPerSession',
    doc: 'admitted prompts per session, running included',
  },
  maxPromptChars: {
    name: 'MAX_PROMPT_CHARS',
    ...integer(1, 1024 ** 3),
    default: 1024 * 1024,
    limit: 'maxPromptChars',
    doc: 'largest prompt (UTF-16 code units of every string its blocks carry: `text`, `data`, and `type`, `mimeType` too); beyond → `413 prompt_too_large`',
  },
  // docs/turn-routes.md#turn-history: activity changes the ETag at most once a second, so the range starts there.
  activityRefreshMs: {
    name: 'ACTIVITY_REFRESH_MS',
    ...integer(1_000, 600_000),
    default: ACTIVITY_REFRESH_MS,
    doc: "least time between two changes of a running turn's `activity` (and ETag); longer wakes `activity` waiters less often",
  },
} as const satisfies Settings;

/**
 * Limits of the prompt bridge: the values of `BRIDGE_SETTINGS` in force (the runtime hands them over with their
 * defaults applied; each row says what it means), and the overlay size. An unset limit is none.
 */
export interface BridgeOptions extends SettingOptions<typeof BRIDGE_SETTINGS> {
  /** Admitted prompts per session, running included. */
  maxPendingPrompts: number;
  /** Terminal statuses kept in memory per session. */
  overlaySize: number;
}

export const BRIDGE_OPTIONS = Symbol('BRIDGE_OPTIONS');

/**
 * The deadline a prompt gets: the server's, narrowed — never extended, never
 * created — by the request's `deadlineMs`.
 */
export function effectiveDeadlineMs(serverMs: number | undefined, requestedMs: number | undefined): number | undefined {
  if (serverMs === undefined) return undefined;
  return requestedMs === undefined ? serverMs : Math.min(serverMs, requestedMs);
}
