import { flag } from '../common/settings/readers.js';
import type { Settings } from '../common/settings/setting.js';

/** OpenTelemetry: a `TURNS_*` setting of the daemon. */
export const TELEMETRY_SETTINGS = {
  tracing: {
    name: 'TRACING',
    ...flag,
    default: false,
    doc: 'load `@opentelemetry/api` at start, for an SDK registered later; without it, it is loaded only when a tracer provider is registered before start (e.g. `node --import ./tracing.mjs`)',
  },
} as const satisfies Settings;
