import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { DaemonConfig } from './daemon-config.js';
import { DaemonModule, type DaemonOverrides } from './daemon.module.js';

/**
 * Builds the daemon on the configured HTTP adapter, with the OpenAPI document
 * at `/docs-json` and Swagger UI at `/docs`. Not yet listening.
 */
export async function createApp(config: DaemonConfig, overrides: DaemonOverrides = {}): Promise<INestApplication> {
  const adapter = config.httpAdapter === 'fastify' ? new FastifyAdapter() : new ExpressAdapter();
  // Do not advertise the framework (Fastify sends no such header).
  if (adapter instanceof ExpressAdapter) adapter.getInstance().disable('x-powered-by');
  const app = await NestFactory.create(DaemonModule.forRoot(config, overrides), adapter, {
    logger: process.env.TURNS_LOG === 'silent' ? false : ['error', 'warn', 'log'],
  });
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('nest-turn-status daemon')
      .setDescription('Sessions, prompt admission, events, and polling of turn status by promptId.')
      .setVersion('1')
      .addBearerAuth()
      .build(),
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });
  app.enableShutdownHooks();
  return app;
}
