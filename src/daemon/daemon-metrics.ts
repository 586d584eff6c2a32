import type { Type } from '@nestjs/common';
import type { MetricsServer } from '../metrics/metrics-server.js';
import type { TurnsMetrics } from '../metrics/turns-metrics.js';
import type { DaemonConfig } from './daemon-config.js';

/**
 * The daemon's Prometheus metrics, as {@link loadDaemonMetrics} loads them
 * for `DaemonModule.forRoot`.
 *
 * @publicApi
 */
export interface DaemonMetrics {
  controller: Type;
  metrics: typeof TurnsMetrics;
  server: typeof MetricsServer;
}

/**
 * Loads the metrics unless `metrics` is `false` (`TURNS_METRICS=false`): only
 * then is prom-client loaded, and with it the `@opentelemetry/api` it
 * requires for its CPU counter. `createApp` calls it; an app that mounts
 * `DaemonModule.forRoot` itself passes what it answers.
 *
 * @publicApi
 */
export async function loadDaemonMetrics(config: Pick<DaemonConfig, 'metrics'>): Promise<DaemonMetrics | undefined> {
  if (config.metrics === false) return undefined;
  const [{ MetricsController }, { TurnsMetrics }, { MetricsServer }] = await Promise.all([
    import('../metrics/metrics.controller.js'),
    import('../metrics/turns-metrics.js'),
    import('../metrics/metrics-server.js'),
  ]);
  return { controller: MetricsController, metrics: TurnsMetrics, server: MetricsServer };
}
