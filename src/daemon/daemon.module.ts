import { Module, type DynamicModule, type INestApplication, type Provider, type Type } from '@nestjs/common';
import { join } from 'node:path';
import { APP_FILTER } from '@nestjs/core';
import { ApiExceptionFilter } from '../errors/api-exception.filter.js';
import type { Clock } from '../common/clock.js';
import type { AgentEngine } from '../engines/agent-engine.js';
import type { AgentEngineProvider } from '../runtime/runtime.module-definition.js';
import { RuntimeModule } from '../runtime/runtime.module.js';
import { RUNTIME_SETTINGS } from '../runtime/runtime.settings.js';
import { pickSettings } from '../common/settings/setting.js';
import { WAIT_SETTINGS } from '../turns/wait/wait.settings.js';
import { webhookOptionsOf } from '../webhooks/webhooks.settings.js';
import type { SessionOwnership } from '../sessions/session-ownership.js';
import { SessionRegistry } from '../sessions/session-registry.js';
import type { TranscriptScanLimits } from '../transcript/jsonl-transcript-scan.service.js';
import { DaemonStatusController } from '../status/daemon-status.controller.js';
import { DaemonStatusService } from '../status/daemon-status.service.js';
import { STATUS_OPTIONS } from '../status/status.settings.js';
import type { HostResolver } from '../webhooks/host-resolver.js';
import type { FrontStage } from '../http/front-door.js';
import { TurnsModule } from '../turns/turns.module.js';
import type { TurnsMetrics } from '../metrics/turns-metrics.js';
import type { DaemonMetrics } from './daemon-metrics.js';
import { DaemonLogger } from '../logging/daemon-logger.js';
import { metricsFrontDoor } from './daemon-front-door.js';
import { createEngine } from './create-engine.js';
import { DaemonTokens } from './daemon-tokens.js';
import { completeDaemonConfig, type DaemonConfig, type LoadedDaemonConfig } from './daemon-config.js';
import { DAEMON_CONFIG, SystemController } from './system.controller.js';

/**
 * Replacements for tests and embedding hosts.
 *
 * @publicApi
 */
export interface DaemonOverrides {
  engine?: AgentEngine;
  clock?: Clock;
  scanLimits?: Partial<TranscriptScanLimits>;
  /** How often every event stream gets its `: heartbeat` comment, in ms (tests shorten it). @default 15000 */
  sseHeartbeatMs?: number;
  /** Who owns the sessions of a single daemon (cluster mode brings its own). @default every session this process starts */
  ownership?: SessionOwnership;
  /** DNS for webhook hosts (the SSRF guard checks what it answers). @default the system resolver */
  webhookResolver?: HostResolver;
  /**
   * `false` takes the Origin, Host and media-type walls down (docs/security.md): only
   * for a host that fronts the daemon with its own, and for the benchmark
   * that measures what they cost.
   */
  browserWalls?: false;
  /**
   * A front door stage that decides who each request is (it calls
   * `setPrincipal`), in place of the bearer token check: for a host that
   * authenticates in front of the daemon, and for tests.
   */
  authentication?: FrontStage;
}

/** Cluster mode as `createApp` loads it: the module, the ownership it gives the runtime, and its front door stage. */
export interface DaemonCluster {
  module: DynamicModule;
  ownership: Type<SessionOwnership>;
  router: Type<{ readonly namesNode: FrontStage; readonly stage: FrontStage }>;
  /** Where the nodes share their rate-limit buckets: the cluster's Redis client and key prefix. */
  sharedStore?: (app: INestApplication) => { redis: unknown; keyPrefix: string };
}

/**
 * The runnable daemon: the reference runtime with its routes, `TurnsModule`,
 * the daemon's own routes and the exception filter. The bearer token and the
 * browser walls stand in `createApp`'s front door, in front of the framework.
 *
 * @publicApi
 */
@Module({})
export class DaemonModule {
  static forRoot(
    settings: DaemonConfig,
    overrides: DaemonOverrides = {},
    cluster?: DaemonCluster,
    logger?: DaemonLogger,
    metrics?: DaemonMetrics,
  ): DynamicModule {
    const config = completeDaemonConfig(settings);
    if (config.metrics && !metrics) {
      throw new Error('DaemonModule.forRoot: metrics are on (TURNS_METRICS): pass `await loadDaemonMetrics(config)` as its fifth argument');
    }
    // Read here, before anything starts: a bad tokens file refuses to start (a TokensFileError).
    const tokens = new DaemonTokens(config);
    const engine: AgentEngineProvider = overrides.engine ? { useValue: overrides.engine } : { useFactory: () => createEngine(config) };
    const runtime = RuntimeModule.forRoot({
      ...pickSettings(config, RUNTIME_SETTINGS),
      sseHeartbeatMs: overrides.sseHeartbeatMs,
      webhooks: {
        ...webhookOptionsOf(config),
        // Each node sends what it queued; a node's outbox waits for it to come back (or a cluster outbox).
        ...(config.redisUrl && config.nodeId && { outboxDir: join(config.dataDir, 'webhooks', `outbox-${config.nodeId}`) }),
        resolver: overrides.webhookResolver,
      },
      clock: overrides.clock,
      scanLimits: overrides.scanLimits,
      engine,
      ...(cluster
        ? { imports: [cluster.module], ownership: { useExisting: cluster.ownership } }
        : overrides.ownership && { ownership: { useValue: overrides.ownership } }),
    });
    return {
      module: DaemonModule,
      // TurnsModule first: Express tries routes in the order they were registered (a settled Express poll: 1.046×).
      imports: [
        TurnsModule.forRoot({
          imports: [runtime],
          sessionLookup: SessionRegistry,
          ...pickSettings(config, WAIT_SETTINGS),
        }),
        runtime,
        // The status route and metrics read its ClusterView (docs/cluster.md#ownership-ports); the runtime's own import, shared.
        ...(cluster ? [cluster.module] : []),
      ],
      controllers: [SystemController, DaemonStatusController, ...(metrics && config.metricsPort === undefined ? [metrics.controller] : [])],
      providers: [
        DaemonStatusService,
        { provide: STATUS_OPTIONS, useValue: { dataDir: config.dataDir } },
        ...metricsProviders(config, tokens, overrides.browserWalls !== false, metrics),
        // The front door's token check and SIGHUP's reload share it.
        { provide: DaemonTokens, useValue: tokens },
        // The logger is a provider too, so the app's shutdown flushes it.
        ...(logger ? [{ provide: DaemonLogger, useValue: logger }] : []),
        { provide: DAEMON_CONFIG, useValue: config },
        // The library's controllers carry the filter themselves (a host that mounts them keeps its own global filter);
        // this one answers the daemon's own routes and paths no route matches.
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
      ],
    };
  }
}

/** `TurnsMetrics` unless `TURNS_METRICS=false`, and its own listener with `TURNS_METRICS_PORT`. */
function metricsProviders(config: LoadedDaemonConfig, tokens: DaemonTokens, walls: boolean, loaded: DaemonMetrics | undefined): Provider[] {
  if (!config.metrics || !loaded) return [];
  if (config.metricsPort === undefined) return [loaded.metrics];
  return [
    loaded.metrics,
    {
      provide: loaded.server,
      inject: [loaded.metrics],
      useFactory: (metrics: TurnsMetrics) =>
        new loaded.server(metrics, config.metricsPort!, config.host, metricsFrontDoor(config, tokens, walls)),
    },
  ];
}
