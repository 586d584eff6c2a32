import { shownDefault } from '../common/settings/setting.js';
import type { RuntimeSettings } from '../runtime/runtime.settings.js';
import { TERMINAL_OVERLAY_SIZE, TRANSCRIPT_SCAN_LIMITS, TURN_LIMITS } from '../turns/rules/limits.js';
import type { CapabilityLimits } from '../wire/capability-limits.js';
import type { LoadedDaemonConfig } from './daemon-config.js';
import { DAEMON_SETTINGS } from './daemon-settings.js';

type Runtime = Pick<RuntimeSettings, 'overlaySize' | 'scanLimits'>;

/** Limits that are no setting of the daemon: the turn rules' field bounds and the runtime's memory and scan bounds. */
const FIXED = {
  promptTextMaxLength: { example: TURN_LIMITS.promptText, read: () => TURN_LIMITS.promptText },
  resultTextMaxLength: { example: TURN_LIMITS.resultText, read: () => TURN_LIMITS.resultText },
  terminalOverlaySize: { example: TERMINAL_OVERLAY_SIZE, read: (runtime: Runtime) => runtime.overlaySize },
  transcriptScanMaxPages: { example: TRANSCRIPT_SCAN_LIMITS.maxPages, read: (runtime: Runtime) => runtime.scanLimits.maxPages },
  transcriptScanPageRecords: {
    example: TRANSCRIPT_SCAN_LIMITS.recordsPerPage,
    read: (runtime: Runtime) => runtime.scanLimits.recordsPerPage,
  },
  transcriptScanPageBytes: { example: TRANSCRIPT_SCAN_LIMITS.bytesPerPage, read: (runtime: Runtime) => runtime.scanLimits.bytesPerPage },
} as const;

/** One field of `/capabilities.limits` as the OpenAPI schema shows it. */
export interface AdvertisedLimit {
  field: string;
  example?: number;
  description?: string;
  /** Always sent (a setting without a default is sent only when set). */
  required: boolean;
}

const ADVERTISING = Object.entries(DAEMON_SETTINGS).flatMap(([key, setting]) =>
  'limit' in setting ? [{ key: key as keyof LoadedDaemonConfig, setting, field: setting.limit }] : [],
);

/** Every field of `/capabilities.limits`: the rows that advertise one, then the fixed limits. */
export const ADVERTISED_LIMITS: readonly AdvertisedLimit[] = [
  ...ADVERTISING.map(({ setting, field }) => ({
    field,
    ...('default' in setting && { example: Number(shownDefault(setting)) }),
    description: `${setting.doc.replaceAll('`', '')} (TURNS_${setting.name}).`,
    required: 'default' in setting,
  })),
  ...Object.entries(FIXED).map(([field, { example }]) => ({ field, example, required: true })),
];

/** The limits in force: each advertising setting's value (when set), and the fixed limits of `runtime`. */
export function capabilityLimits(config: LoadedDaemonConfig, runtime: Runtime): CapabilityLimits {
  const limits: Record<string, number> = {};
  for (const { key, field } of ADVERTISING) {
    const value = config[key];
    if (typeof value === 'number') limits[field] = value;
  }
  for (const [field, { read }] of Object.entries(FIXED)) limits[field] = read(runtime);
  return limits as unknown as CapabilityLimits;
}
