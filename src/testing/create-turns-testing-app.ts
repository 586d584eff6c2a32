import type { Server } from 'node:http';
import { Module, type DynamicModule, type INestApplication, type ModuleMetadata, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BridgeOverlayProvider } from '../turns/bridge-overlay.provider.js';
import { TranscriptScanService } from '../turns/transcript-scan.service.js';
import type { TurnsModuleOptions } from '../turns/turns.module-definition.js';
import { TurnsModule } from '../turns/turns.module.js';
import { importPeer } from '../common/peer-install.js';
import { importsModule } from './imported-module-graph.js';
import { InMemoryBridgeOverlay } from './in-memory-bridge-overlay.js';
import { InMemoryTranscriptScan } from './in-memory-transcript-scan.js';

interface TestingAppBase {
  /** The HTTP platform (its Nest package must be installed). @default 'express' */
  adapter?: 'express' | 'fastify';
  /** Controllers and providers of the test, mounted beside the imports. */
  controllers?: ModuleMetadata['controllers'];
  providers?: ModuleMetadata['providers'];
}

/**
 * Options for an app over the host's own ports: one of `imports` mounts
 * `TurnsModule` (its `forRoot` sets the ports and options), and the kit adds no second one.
 *
 * @publicApi
 */
export interface HostTurnsTestingAppOptions extends TestingAppBase {
  /** The host's modules (e.g. `[AppModule]`); one of them, however deep, mounts `TurnsModule`. */
  imports: NonNullable<ModuleMetadata['imports']>;
  /** `'host'` (the default whenever `imports` are given): the host's `TurnsModule` over its own ports. */
  ports?: 'host';
}

/**
 * Options for an app over the kit's in-memory ports: a bare app (no
 * `imports`), or `ports: 'in-memory'` asked for explicitly.
 *
 * @publicApi
 */
export interface TurnsTestingAppOptions extends TestingAppBase, TurnsModuleOptions {
  /**
   * `'in-memory'`: `TurnsModule` over {@link InMemoryBridgeOverlay} and {@link InMemoryTranscriptScan}.
   * Needed with `imports`; when they mount `TurnsModule` themselves, that one's two ports are replaced
   * (and its options kept; this needs `@nestjs/testing`).
   * @default 'in-memory' without `imports`
   */
  ports?: 'in-memory';
  /** The live side; a fresh one unless given. */
  bridge?: InMemoryBridgeOverlay;
  /** The persisted side; a fresh one unless given. */
  transcript?: InMemoryTranscriptScan;
  /** Modules of the host mounted beside `TurnsModule`. */
  imports?: ModuleMetadata['imports'];
}

/**
 * The app the kit builds: its HTTP server is Node's, typed so (supertest takes it
 * without an `any`, as `nest new`'s own e2e types its app).
 *
 * @publicApi
 */
export type TurnsTestingNestApp = INestApplication<Server>;

/** @publicApi */
export interface TurnsTestingApp {
  /** Initialized, not listening: hand `app.getHttpServer()` to supertest. */
  app: TurnsTestingNestApp;
  ports: 'in-memory';
  bridge: InMemoryBridgeOverlay;
  transcript: InMemoryTranscriptScan;
}

/** @publicApi */
export interface HostTurnsTestingApp {
  /** Initialized, not listening: hand `app.getHttpServer()` to supertest. */
  app: TurnsTestingNestApp;
  ports: 'host';
  /** The host's own ports, as its `TurnsModule` resolved them. */
  bridge: BridgeOverlayProvider;
  transcript: TranscriptScanService;
}

/**
 * An `INestApplication` ready for supertest, on Express or Fastify: over the host's own `TurnsModule` and ports given
 * its modules, else (or with `ports: 'in-memory'`) over the kit's, driven step by step (docs/testing.md, with examples).
 *
 * @publicApi
 */
export function createTurnsTestingApp(options?: TurnsTestingAppOptions & { imports?: undefined }): Promise<TurnsTestingApp>;
export function createTurnsTestingApp(options: TurnsTestingAppOptions & { ports: 'in-memory' }): Promise<TurnsTestingApp>;
export function createTurnsTestingApp(options: HostTurnsTestingAppOptions): Promise<HostTurnsTestingApp>;
// Last, as `Awaited<ReturnType<typeof createTurnsTestingApp>>` reads it: a variable of that type takes either form.
export function createTurnsTestingApp(
  options?: HostTurnsTestingAppOptions | TurnsTestingAppOptions,
): Promise<HostTurnsTestingApp | TurnsTestingApp>;
export async function createTurnsTestingApp(
  options: HostTurnsTestingAppOptions | TurnsTestingAppOptions = {},
): Promise<HostTurnsTestingApp | TurnsTestingApp> {
  const { adapter = 'express', imports, controllers = [], providers = [], ports: asked, ...rest } = options as TurnsTestingAppOptions;
  const ports = asked ?? (imports === undefined ? 'in-memory' : 'host');
  if (ports !== 'in-memory' && ports !== 'host')
    throw new Error(`createTurnsTestingApp: ports must be 'host' or 'in-memory' (got ${String(ports)})`);
  const { bridge: given, transcript: persisted, ...turnsOptions } = rest;
  const mounted = await importsModule(imports, TurnsModule);
  // What the host's own forRoot decides cannot be given here too.
  const clashing = Object.keys(ports === 'host' ? rest : turnsOptions).filter((key) => rest[key as keyof typeof rest] !== undefined);
  if (mounted && clashing.length > 0) {
    throw new Error(
      `createTurnsTestingApp: ${clashing.join(', ')} cannot apply: the imported modules mount TurnsModule, whose forRoot sets its own ports and options`,
    );
  }

  if (ports === 'host') {
    if (!mounted) {
      throw new Error(
        'createTurnsTestingApp: none of the imported modules mounts TurnsModule, so there are no host ports to test. ' +
          "Mount TurnsModule.forRoot(…) in your module, or pass { ports: 'in-memory' } to test over the kit's in-memory ports.",
      );
    }
    @Module({ imports, controllers, providers })
    class HostTestingModule {}
    const app = await createApp(HostTestingModule, adapter);
    return { app, ports, bridge: app.get(BridgeOverlayProvider), transcript: app.get(TranscriptScanService) };
  }

  const bridge = given ?? new InMemoryBridgeOverlay();
  const transcript = persisted ?? new InMemoryTranscriptScan();
  if (mounted) {
    @Module({ imports, controllers, providers })
    class ReplacedPortsTestingModule {}
    const app = await createApp(ReplacedPortsTestingModule, adapter, { bridge, transcript });
    return { app, ports, bridge, transcript };
  }

  @Module({
    providers: [
      { provide: BridgeOverlayProvider, useValue: bridge },
      { provide: TranscriptScanService, useValue: transcript },
    ],
    exports: [BridgeOverlayProvider, TranscriptScanService],
  })
  class InMemoryPortsModule {}

  const turns: DynamicModule = TurnsModule.forRoot({ ...turnsOptions, imports: [InMemoryPortsModule] });
  @Module({ imports: [turns, ...(imports ?? [])], controllers, providers })
  class TurnsTestingModule {}
  return { app: await createApp(TurnsTestingModule, adapter), ports, bridge, transcript };
}

/** Builds and initializes the app; with `replace`, the two ports the host's modules provide are swapped first. */
async function createApp(
  module: Type,
  adapter: 'express' | 'fastify',
  replace?: { bridge: BridgeOverlayProvider; transcript: TranscriptScanService },
): Promise<TurnsTestingNestApp> {
  const platform = adapter === 'fastify' ? await fastifyAdapter() : undefined;
  // Nest's error, not a process.exit: a test runner shows why the host did not boot.
  const options = { logger: false, abortOnError: false } as const;
  let app: TurnsTestingNestApp;
  if (replace) {
    const { Test } = await nestTesting();
    const compiled = await Test.createTestingModule({ imports: [module] })
      .overrideProvider(BridgeOverlayProvider)
      .useValue(replace.bridge)
      .overrideProvider(TranscriptScanService)
      .useValue(replace.transcript)
      .compile();
    app = platform ? compiled.createNestApplication(platform, options) : compiled.createNestApplication(options);
  } else {
    app = platform ? await NestFactory.create(module, platform, options) : await NestFactory.create(module, options);
  }
  await app.init();
  if (platform) await (app.getHttpAdapter().getInstance() as { ready(): Promise<unknown> }).ready();
  return app;
}

/** Loaded only when asked for, so Express hosts need no Fastify. */
async function fastifyAdapter() {
  const { FastifyAdapter } = await importPeer(
    '@nestjs/platform-fastify',
    () => import('@nestjs/platform-fastify'),
    "createTurnsTestingApp: adapter 'fastify'",
  );
  return new FastifyAdapter();
}

/** Loaded only to replace a host's ports (`nest new` projects have it among their devDependencies). */
function nestTesting(): Promise<typeof import('@nestjs/testing')> {
  return importPeer(
    '@nestjs/testing',
    () => import('@nestjs/testing'),
    "createTurnsTestingApp: replacing the ports of the host's TurnsModule with the in-memory ones",
  );
}
