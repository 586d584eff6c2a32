import type { INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import { completeDaemonConfig, type DaemonConfig, type LoadedDaemonConfig } from './daemon-config.js';
import { BearerToken } from './bearer-token.js';
import { browserWallSettings, installBrowserWalls } from './browser-walls.js';
import { DaemonModule, type DaemonCluster, type DaemonOverrides } from './daemon.module.js';
import { fastifyOptions, hardenApp } from './http-hardening.js';
import { buildOpenApiDocument } from './openapi.js';
import { DaemonLogger } from '../logging/daemon-logger.js';
import { LOG_LEVELS, type LogLevel } from '../logging/log-level.js';
import { TurnsMetrics } from '../metrics/turns-metrics.js';
import { loadOpenTelemetry } from '../telemetry/tracing.js';
import { RequestObserver } from './request-observer.js';

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
  const token = config.token ? new BearerToken(config.token) : undefined;
  return {
    module: ClusterModule.forRoot({
      redisUrl: config.redisUrl,
      nodeId: config.nodeId!,
      nodeUrl: config.nodeUrl,
      leaseMs: config.leaseMs,
      forwardTimeoutMs: config.forwardTimeoutMs,
      maxWaitMs: config.maxWaitMs,
      authorize: token && ((authorization) => token.accepts(authorization)),
    }),
    ownership: RedisSessionOwnership,
  };
}

/**
 * Builds the daemon on the configured HTTP adapter, with the OpenAPI document
 * at `/docs-json` and Swagger UI at `/docs`, behind the browser walls (SPEC
 * §15). Initialized, not yet listening; signals are the caller's to handle
 * (`main` closes the app on SIGINT/SIGTERM).
 *
 * @publicApi
 */
export async function createApp(settings: DaemonConfig, overrides: DaemonOverrides = {}): Promise<INestApplication> {
  // A level left out: `TURNS_LOG` of the environment (tests set it for embedded daemons), else the default.
  const config = completeDaemonConfig({ ...settings, log: settings.log ?? envLogLevel() });
  // OpenTelemetry, when its API is installed: loaded before any span could start.
  await loadOpenTelemetry();
  const logger = new DaemonLogger({ level: config.log, logPolls: config.logPolls });
  const module = DaemonModule.forRoot(config, overrides, await loadCluster(config), logger);
  const app = await NestFactory.create(module, await createAdapter(config), {
    logger,
    // Express's JSON parser is registered by hardenApp, with the configured limit.
    bodyParser: config.httpAdapter === 'fastify',
  });
  hardenApp(app, config);
  const observer = new RequestObserver(config.metrics ? app.get(TurnsMetrics) : undefined, logger);
  observer.prepare(app, config.httpAdapter);
  SwaggerModule.setup('docs', app, buildOpenApiDocument(app), { jsonDocumentUrl: 'docs-json' });
  // Initialized first, so the walls and the request observer stand in front of everything, the cluster router included;
  // the observer outermost, so refusals at the walls are counted and logged too.
  await app.init();
  if (overrides.browserWalls !== false) installBrowserWalls(app.getHttpServer() as Server, browserWallSettings(config));
  observer.install(app);
  return app;
}

function envLogLevel(): LogLevel | undefined {
  const env = process.env.TURNS_LOG as LogLevel | undefined;
  return env && LOG_LEVELS.includes(env) ? env : undefined;
}
