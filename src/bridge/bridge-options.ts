/**
 * Limits of the prompt bridge, as the runtime hands them over with its defaults applied
 * (`RuntimeSettings`; the rows of `BRIDGE_SETTINGS` say what each means).
 */
export interface BridgeOptions {
  /** Admitted prompts per session, running included. */
  maxPendingPrompts: number;
  /** Server deadline per prompt, from admission; unset means none. */
  promptDeadlineMs?: number;
  /** Terminal statuses kept in memory per session. */
  overlaySize: number;
  /** Largest prompt in UTF-16 code units of its blocks' text and data; unset means unbounded (the runtime always sets it). */
  maxPromptChars?: number;
  /** Least time between two changes of a running turn's `activity`. @default 1000 */
  activityRefreshMs?: number;
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
