import { Inject, Injectable, Optional, type OnModuleDestroy } from '@nestjs/common';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { PromptBridge } from '../bridge/prompt-bridge.js';
import { SessionEventBus } from '../events/session-event-bus.js';
import { PermissionBroker } from '../permissions/permission-broker.js';
import { ClusterView } from '../sessions/cluster-view.js';
import { SessionRegistry } from '../sessions/session-registry.js';
import { TurnWaitService } from '../turns/wait/turn-wait.service.js';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import { registerClusterSeries } from './cluster-series.js';
import { httpLabels } from './http-labels.js';
import { MetricSeries } from './metric-series.js';
import { RequestHistogram, type HistogramSeries } from './request-histogram.js';
import { registerServiceSeries } from './service-series.js';
import { registerTurnSeries } from './turn-series.js';

/**
 * prom-client's gauges of this name end in `_total`, which Prometheus keeps
 * for counters (`promtool check metrics` rejects them); the same counts are
 * in `nodejs_active_handles` etc. by type.
 */
const MISNAMED_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

const HTTP_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The daemon's Prometheus series (docs/operating.md), in a registry of its own.
 * Events arrive on the telemetry channels; gauges are read from the live
 * services when scraped, so the request path only increments pre-bound
 * children. HTTP series are labelled by route template, never by path, so
 * their number is bounded whatever ids clients send.
 */
@Injectable()
export class TurnsMetrics implements OnModuleDestroy {
  readonly registry = new Registry();
  private readonly series = new MetricSeries(this.registry);
  private readonly httpDuration: RequestHistogram;
  private readonly httpChildren = new Map<string, HistogramSeries>();

  constructor(
    registry: SessionRegistry,
    bridge: PromptBridge,
    waits: TurnWaitService,
    events: SessionEventBus,
    webhooks: WebhookDispatcher,
    permissions: PermissionBroker,
    // Cluster mode only (docs/cluster.md#ownership-ports): a single daemon has no cluster series.
    @Optional() @Inject(ClusterView) cluster?: ClusterView,
  ) {
    collectDefaultMetrics({ register: this.registry });
    for (const name of MISNAMED_DEFAULTS) this.registry.removeSingleMetric(name);
    this.httpDuration = new RequestHistogram(
      'turns_http_request_duration_seconds',
      'HTTP requests by method, route template and status: time to the last byte',
      HTTP_BUCKETS,
      this.registry,
    );
    registerTurnSeries(this.series, bridge);
    registerServiceSeries(this.series, { registry, waits, events, permissions, webhooks });
    if (cluster) registerClusterSeries(this.series, cluster);
  }

  /** Records one HTTP exchange (labels normalized so their number stays bounded). */
  observeHttp(method: string | undefined, route: string, status: number, seconds: number): void {
    // Keyed by the raw values (Node's parser knows a fixed set of methods), normalized once per key.
    const key = `${method} ${status} ${route}`;
    let child = this.httpChildren.get(key);
    if (!child) {
      child = this.httpDuration.labels(httpLabels(method, route, status));
      this.httpChildren.set(key, child);
    }
    child.observe(seconds);
  }

  /** The exposition, in the Prometheus text format. */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  onModuleDestroy(): void {
    this.series.close();
  }
}
