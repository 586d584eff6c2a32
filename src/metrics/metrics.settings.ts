import { flag, integer } from '../common/settings/readers.js';
import type { Settings } from '../common/settings/setting.js';

/** Prometheus metrics: `TURNS_*` settings of the daemon. */
export const METRICS_SETTINGS = {
  metrics: { name: 'METRICS', ...flag, default: true, doc: '`GET /metrics` (Prometheus); `false` turns metrics off' },
  metricsPort: {
    name: 'METRICS_PORT',
    ...integer(0, 65_535),
    doc: "serve `GET /metrics` on this port of its own (same host, same token rule) instead of the API's port",
  },
} as const satisfies Settings;
