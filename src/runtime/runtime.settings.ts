import { BRIDGE_SETTINGS } from '../bridge/bridge.settings.js';
import { EVENT_SETTINGS } from '../events/events.settings.js';
import { IDEMPOTENCY_SETTINGS } from '../idempotency/idempotency.settings.js';
import { PERMISSION_SETTINGS } from '../permissions/permissions.settings.js';
import { SESSION_SETTINGS } from '../sessions/sessions.settings.js';
import { TRANSCRIPT_SETTINGS } from '../transcript/transcript.settings.js';

/** The runtime's settings, each owned by its feature: the flat fields of `RuntimeModuleOptions`. */
export const RUNTIME_SETTINGS = {
  ...TRANSCRIPT_SETTINGS,
  ...SESSION_SETTINGS,
  ...BRIDGE_SETTINGS,
  ...EVENT_SETTINGS,
  ...IDEMPOTENCY_SETTINGS,
  ...PERMISSION_SETTINGS,
} as const;
