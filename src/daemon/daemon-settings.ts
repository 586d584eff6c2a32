import type { Setting, Settings } from '../common/settings/setting.js';
import { CLUSTER_MODE_SETTINGS } from '../cluster/node/cluster.settings.js';
import { ENGINE_SETTINGS } from '../engines/engine.settings.js';
import { LOGGING_SETTINGS } from '../logging/logging.settings.js';
import { METRICS_SETTINGS } from '../metrics/metrics.settings.js';
import { TELEMETRY_SETTINGS } from '../telemetry/telemetry.settings.js';
import { RUNTIME_SETTINGS } from '../runtime/runtime.settings.js';
import { WAIT_SETTINGS } from '../turns/wait/wait.settings.js';
import { TURN_WEBHOOK_SETTINGS } from '../webhooks/webhooks.settings.js';
import { AUTH_SETTINGS } from './auth.settings.js';
import { RATE_LIMIT_SETTINGS } from '../rate-limit/rate-limit.settings.js';
import { HTTP_SETTINGS } from './http.settings.js';

export { ConfigError } from '../common/settings/setting.js';

/**
 * One setting of the daemon (see {@link Setting}): the variable `TURNS_<name>`,
 * the flag `--<name in kebab case>`.
 */
export type DaemonSetting<T> = Setting<T>;

const { host, port, ...http } = HTTP_SETTINGS;

/**
 * Every setting of the daemon, each declared once by the feature that owns it:
 * read by `loadDaemonConfig`, turned into the `serve` command's flags, reported
 * in `/capabilities.limits`, and listed in docs/configuration.md (a spec writes
 * and checks the table). The order is the docs' and the help's.
 */
export const DAEMON_SETTINGS = {
  host,
  port,
  ...RUNTIME_SETTINGS,
  ...ENGINE_SETTINGS,
  ...AUTH_SETTINGS,
  ...http,
  ...RATE_LIMIT_SETTINGS,
  ...WAIT_SETTINGS,
  ...TURN_WEBHOOK_SETTINGS,
  ...CLUSTER_MODE_SETTINGS,
  ...LOGGING_SETTINGS,
  ...METRICS_SETTINGS,
  ...TELEMETRY_SETTINGS,
} as const satisfies Settings;

/** The command-line flag of a setting (`DATA_DIR` → `--data-dir`). */
export const flagOf = (setting: { name: string }) => `--${setting.name.toLowerCase().replaceAll('_', '-')}`;
