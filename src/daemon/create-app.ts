import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import { apiError } from '../common/api-errors.js';
import { BearerToken } from './bearer-token.js';
import type { DaemonConfig } from './daemon-config.js';
import { DaemonModule, type DaemonOverrides } from './daemon.module.js';
import { buildOpenApiDocument } from './openapi.js';

/** Where Swagger UI and the OpenAPI document are served. */
const DOCS_PREFIXES = ['/docs'];

/**
 * The HTTP adapter the configuration names. Fastify (and its Nest platform)
 * is loaded only when chosen, so the daemon runs without them installed.
 */
async function createAdapter(config: DaemonConfig) {
  if (config.httpAdapter === 'fastify') {
    const { FastifyAdapter } = await import('@nestjs/platform-fastify');
    return new FastifyAdapter();
  }
  const adapter = new ExpressAdapter();
  // Do not advertise the framework (Fastify sends no such header).
  adapter.getInstance().disable('x-powered-by');
  return adapter;
}

/**
 * Swagger UI and its document are served by the adapter, outside Nest's guards:
 * hold them to the same bearer token here, the one adapter-aware place.
 */
function guardDocs(app: INestApplication, config: DaemonConfig): void {
  if (!config.token) return;
  const token = new BearerToken(config.token);
  const denied = apiError('unauthorized');
  const isDocs = (url: string | undefined) =>
    DOCS_PREFIXES.some(
      (prefix) => url === prefix || url?.startsWith(`${prefix}/`) || url?.startsWith(`${prefix}-json`) || url?.startsWith(`${prefix}?`),
    );
  const instance = app.getHttpAdapter().getInstance();
  if (config.httpAdapter === 'fastify') {
    instance.addHook(
      'onRequest',
      (
        request: { url: string; headers: Record<string, unknown> },
        reply: { code(n: number): { send(b: unknown): void } },
        done: () => void,
      ) => {
        if (isDocs(request.url) && !token.accepts(request.headers.authorization)) reply.code(401).send(denied.toBody());
        else done();
      },
    );
  } else {
    instance.use(
      (
        request: { url: string; headers: Record<string, unknown> },
        response: { status(n: number): { json(b: unknown): void } },
        next: () => void,
      ) => {
        if (isDocs(request.url) && !token.accepts(request.headers.authorization)) response.status(401).json(denied.toBody());
        else next();
      },
    );
  }
}

/**
 * Builds the daemon on the configured HTTP adapter, with the OpenAPI document
 * at `/docs-json` and Swagger UI at `/docs`. Not yet listening.
 *
 * @publicApi
 */
export async function createApp(config: DaemonConfig, overrides: DaemonOverrides = {}): Promise<INestApplication> {
  const app = await NestFactory.create(DaemonModule.forRoot(config, overrides), await createAdapter(config), {
    logger: process.env.TURNS_LOG === 'silent' ? false : ['error', 'warn', 'log'],
  });
  guardDocs(app, config);
  SwaggerModule.setup('docs', app, buildOpenApiDocument(app), { jsonDocumentUrl: 'docs-json' });
  app.enableShutdownHooks();
  return app;
}
