import { Module, type INestApplication, type ModuleMetadata } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BridgeOverlayProvider } from '../turns/bridge-overlay.provider.js';
import { TranscriptScanService } from '../turns/transcript-scan.service.js';
import type { TurnsModuleOptions } from '../turns/turns.module-definition.js';
import { TurnsModule } from '../turns/turns.module.js';
import { InMemoryBridgeOverlay } from './in-memory-bridge-overlay.js';
import { InMemoryTranscriptScan } from './in-memory-transcript-scan.js';

/** @publicApi */
export interface TurnsTestingAppOptions extends TurnsModuleOptions {
  /** The HTTP platform (its Nest package must be installed). @default 'express' */
  adapter?: 'express' | 'fastify';
  /** The live side; a fresh one unless given. */
  bridge?: InMemoryBridgeOverlay;
  /** The persisted side; a fresh one unless given. */
  transcript?: InMemoryTranscriptScan;
  /** The host's own modules, controllers and providers, mounted beside `TurnsModule`. */
  imports?: ModuleMetadata['imports'];
  controllers?: ModuleMetadata['controllers'];
  providers?: ModuleMetadata['providers'];
}

/** @publicApi */
export interface TurnsTestingApp {
  /** Initialized, not listening: hand `app.getHttpServer()` to supertest. */
  app: INestApplication;
  bridge: InMemoryBridgeOverlay;
  transcript: InMemoryTranscriptScan;
}

/**
 * An `INestApplication` with `TurnsModule` over the in-memory ports, on
 * Express or Fastify, ready for supertest:
 *
 * ```ts
 * const { app, bridge } = await createTurnsTestingApp();
 * bridge.addSession('s1');
 * await request(app.getHttpServer()).get('/session/s1/turns/current').expect(200, { sessionId: 's1', state: 'idle' });
 * ```
 *
 * @publicApi
 */
export async function createTurnsTestingApp(options: TurnsTestingAppOptions = {}): Promise<TurnsTestingApp> {
  const {
    adapter = 'express',
    imports = [],
    controllers = [],
    providers = [],
    bridge: given,
    transcript: persisted,
    ...turnsOptions
  } = options;
  const bridge = given ?? new InMemoryBridgeOverlay();
  const transcript = persisted ?? new InMemoryTranscriptScan();

  @Module({
    providers: [
      { provide: BridgeOverlayProvider, useValue: bridge },
      { provide: TranscriptScanService, useValue: transcript },
    ],
    exports: [BridgeOverlayProvider, TranscriptScanService],
  })
  class InMemoryPortsModule {}

  @Module({ imports: [TurnsModule.forRoot({ ...turnsOptions, imports: [InMemoryPortsModule] }), ...imports], controllers, providers })
  class TurnsTestingModule {}

  const app =
    adapter === 'fastify'
      ? await NestFactory.create(TurnsTestingModule, await fastifyAdapter(), { logger: false })
      : await NestFactory.create(TurnsTestingModule, { logger: false });
  await app.init();
  if (adapter === 'fastify') await (app.getHttpAdapter().getInstance() as { ready(): Promise<unknown> }).ready();
  return { app, bridge, transcript };
}

/** Loaded only when asked for, so Express hosts need no Fastify. */
async function fastifyAdapter() {
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  return new FastifyAdapter();
}
