import type { SettingOptions } from '../common/settings/setting.js';
import type { BRIDGE_SETTINGS } from './bridge.settings.js';

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
