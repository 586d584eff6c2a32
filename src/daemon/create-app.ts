import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import { completeDaemonConfig, type DaemonConfig, type LoadedDaemonConfig } from './daemon-config.js';
import { openFrontDoor } from './daemon-front-door.js';
import { DaemonModule, type DaemonCluster, type DaemonOverrides } from './daemon.module.js';
import { DaemonTokens } from './daemon-tokens.js';
import { loadDaemonMetrics } from './daemon-metrics.js';
import { fastifyOptions, hardenApp } from './http-hardening.js';
import { buildOpenApiDocument } from './openapi.js';
import { DaemonLogger } from '../logging/daemon-logger.js';
import { LOG_LEVELS, type LogLevel } from '../logging/log-level.js';
import { loadOpenTelemetry, tracingWanted } from '../telemetry/tracing.js';
import { RequestObserver } from './request-observer.js';
import { pickSettings } from '../common/settings/setting.js';
import { CLUSTER_MODE_SETTINGS } from '../cluster/node/cluster.settings.js';
import { ClientIdOptions } from '../client-id/client-id-options.js';
import type { FrontStage } from '../http/front-door.js';
import { SessionRegistry } from '../sessions/session-registry.js';

/**
 * The HTTP adapter the configuration names. Fastify (and its Nest platform)
 * is loaded only when chosen, so the daemon runs without them installed.
 */
async function createAdapter(config: LoadedDaemonConfig) {
  if (config.httpAdapter === 'fastify') {
    const { FastifyAdapter } = await import('@nestjs/platform-fastify');
    return new FastifyAdapter(fastifyOptions(config) as ConstructorParameters<typeof FastifyAdapter>[0]);
  }
  const adapter = new ExpressAdapter();
  // Do not advertise the framework (Fastify sends no such header).
  adapter.getInstance().disable('x-powered-by');
  return adapter;
}

/**
 * Cluster mode, when `TURNS_REDIS_URL` is set. Loaded only then, so a single
 * daemon runs without the Redis client and undici installed.
 */
async function loadCluster(config: LoadedDaemonConfig): Promise<DaemonCluster | undefined> {
  if (!config.redisUrl) return undefined;
  const { ClusterModule, RedisSessionOwnership } = await import('../cluster/index.js');
  const { ClusterRouter } = await import('../cluster/routing/cluster-router.js');
  const { CLUSTER_REDIS, CLUSTER_SETTINGS } = await import('../cluster/node/cluster.settings.js');
  return {
    sharedStore: (app) => ({ redis: app.get(CLUSTER_REDIS), keyPrefix: app.get<{ keyPrefix: string }>(CLUSTER_SETTINGS).keyPrefix }),
    module: ClusterModule.forRoot({
      ...pickSettings(config, CLUSTER_MODE_SETTINGS),
      redisUrl: config.redisUrl,
      nodeId: config.nodeId!,
      maxWaitMs: config.maxWaitMs,
      dataDir: config.dataDir,
      peerToken: config.token,
    }),
    ownership: RedisSessionOwnership,
    router: ClusterRouter,
  };
}

/**
 * Builds the daemon on the configured HTTP adapter, with the OpenAPI document
 * at `/docs-json` and Swagger UI at `/docs`, behind its front door (the
 * browser walls of docs/security.md, the gate, the bearer token, cluster forwarding). Initialized, not yet listening; signals are the caller's to handle
 * (`main` closes the app on SIGINT/SIGTERM).
 *
 * @publicApi
 */
export async function createApp(settings: DaemonConfig, overrides: DaemonOverrides = {}): Promise<INestApplication> {
  // A level left out: `TURNS_LOG` of the environment (tests set it for embedded daemons), else the default.
  const config = completeDaemonConfig({ ...settings, log: settings.log ?? envLogLevel() });
  // OpenTelemetry, when asked for or an SDK is registered (and its API installed): loaded before any span could start.
  if (tracingWanted(config.tracing)) await loadOpenTelemetry();
  const logger = new DaemonLogger({ level: config.log, logPolls: config.logPolls });
  const [cluster, metrics] = await Promise.all([loadCluster(config), loadDaemonMetrics(config)]);
  const module = DaemonModule.forRoot(config, overrides, cluster, logger, metrics);
  const app = await NestFactory.create(module, await createAdapter(config), {
    logger,
    // Express's JSON parser is registered by hardenApp, with the configured limit.
    bodyParser: config.httpAdapter === 'fastify',
  });
  hardenApp(app, config);
  SwaggerModule.setup('docs', app, buildOpenApiDocument(app), { jsonDocumentUrl: 'docs-json' });
  // Initialized first, so every route is known and the front door stands before all of them.
  await app.init();
  openFrontDoor(app, config, {
    observer: new RequestObserver(metrics && app.get(metrics.metrics), logger),
    tokens: app.get(DaemonTokens),
    cluster: cluster && app.get(cluster.router),
    browserWalls: overrides.browserWalls,
    sessions: app.get(SessionRegistry),
    authentication: overrides.authentication,
    rateLimits: config.rateLimit ? await loadRateLimits(app, config, cluster, logger) : undefined,
  });
  return app;
}

/**
 * The rate limits' front door stage (`--rate-limit`): loaded only then. In
 * cluster mode the buckets live in the cluster's Redis, under its key prefix.
 */
async function loadRateLimits(
  app: INestApplication,
  config: LoadedDaemonConfig,
  cluster: DaemonCluster | undefined,
  logger: DaemonLogger,
): Promise<FrontStage> {
  const [{ RateLimits }, { rateLimitStage }] = await Promise.all([
    import('../rate-limit/rate-limits.js'),
    import('../rate-limit/rate-limit.stage.js'),
  ]);
  return rateLimitStage(new RateLimits(config, cluster?.sharedStore?.(app)), {
    clients: app.get(SessionRegistry),
    header: app.get(ClientIdOptions).header.toLowerCase(),
    windowMs: config.rateLimitWindowMs,
    onError: (error) => logger.error(`rate limits failed; the request passed: ${String(error)}`, undefined, 'RateLimits'),
  });
}

function envLogLevel(): LogLevel | undefined {
  const env = process.env.TURNS_LOG as LogLevel | undefined;
  return env && LOG_LEVELS.includes(env) ? env : undefined;
}
