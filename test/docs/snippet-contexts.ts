/**
 * What the docs' TypeScript snippets take for granted, written once for the snippet test.
 *
 * Markdown snippets are whole files; the only things they import that a reader has and the
 * scratch project does not are the host's own classes (`./my-runtime`), its `AppModule`
 * (`../src/app.module`, as a `nest new` e2e imports it) and the controller and service `nest new`
 * puts beside it. Here the first two are the testing kit's, the last two empty stand-ins. The
 * example host runtime (`./host-runtime/…`) is copied from docs/examples by the snippet test.
 */
export const SUPPORT_FILES: Record<string, string> = {
  'src/my-runtime.ts': `import { Module } from '@nestjs/common';
import { BridgeOverlayProvider, TranscriptScanService } from 'nest-turn-status';
import { EchoEngine } from 'nest-turn-status/runtime';
import { InMemoryBridgeOverlay, InMemoryTranscriptScan } from 'nest-turn-status/testing';

export class MyBridge extends InMemoryBridgeOverlay {}
export class MyTranscriptScan extends InMemoryTranscriptScan {}
export class MyEngine extends EchoEngine {}

@Module({})
export class MyEngineDepsModule {}

@Module({
  providers: [
    { provide: BridgeOverlayProvider, useClass: MyBridge },
    { provide: TranscriptScanService, useClass: MyTranscriptScan },
  ],
  exports: [BridgeOverlayProvider, TranscriptScanService],
})
export class MyRuntimeModule {}
`,
  // The host's own authentication (Passport's AuthGuard('jwt') in a real app): leaves the caller on request.user.
  'src/jwt-auth.guard.ts': `import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';

@Injectable()
export class JwtAuthGuard implements CanActivate {
  canActivate(_context: ExecutionContext): boolean {
    return true;
  }
}
`,
  // What `nest new` generates beside its AppModule (docs/install.md mounts TurnsModule in that one).
  'src/app.controller.ts': `import { Controller } from '@nestjs/common';

@Controller()
export class AppController {}
`,
  'src/app.service.ts': `import { Injectable } from '@nestjs/common';

@Injectable()
export class AppService {}
`,
  'src/app.module.ts': `import { Module } from '@nestjs/common';
import { TurnsModule } from 'nest-turn-status';
import { MyBridge, MyTranscriptScan } from './my-runtime';

@Module({ imports: [TurnsModule.forRoot({ bridgeOverlay: MyBridge, transcriptScan: MyTranscriptScan })] })
export class AppModule {}
`,
};

/** Lines around a doc-comment example: doc comments show the call, not its imports or the values it is given. */
export interface ExampleContext {
  before: string;
  after?: string;
}

/**
 * The context of each source file's doc-comment examples (```ts blocks in its JSDoc) that have no
 * imports of their own. A file with such an example and no entry here is compiled without one, so a
 * new example fails until it gets its context (or its imports).
 */
export const EXAMPLE_CONTEXTS: Record<string, ExampleContext> = {
  'src/client/turns-client.ts': { before: `import { TurnsClient } from 'nest-turn-status/client';` },
  'src/turns/overlay/terminal-overlay.ts': { before: `import { TerminalOverlay } from 'nest-turn-status';` },
  'src/testing/in-memory-bridge-overlay.ts': { before: `import { InMemoryBridgeOverlay } from 'nest-turn-status/testing';` },
  'src/testing/create-turns-testing-app.ts': {
    before: [
      `import request from 'supertest';`,
      `import { createTurnsTestingApp } from 'nest-turn-status/testing';`,
      `import { AppModule } from './app.module.js';`,
      `void AppModule;`,
    ].join('\n'),
  },
  'src/testing/scripted-engine.ts': { before: `import { ScriptedEngine } from 'nest-turn-status/testing';` },
  'src/webhooks/turn-webhook.guard.ts': {
    before: [
      `import { Controller, Post, UseGuards } from '@nestjs/common';`,
      `import { TurnWebhook, TurnWebhookGuard, type TurnWebhookEvent } from 'nest-turn-status/webhooks';`,
      `@Controller()`,
      `export class Hooks {`,
    ].join('\n'),
    after: '}',
  },
  'src/webhooks/turn-webhook-signature.ts': {
    before: [
      `import { verifyTurnWebhook } from 'nest-turn-status/webhooks';`,
      `declare const rawBody: Buffer;`,
      `declare const req: { headers: Record<string, string | string[] | undefined> };`,
    ].join('\n'),
  },
  'src/runtime/runtime.module.ts': {
    before: [
      `import { Module } from '@nestjs/common';`,
      `import { TurnsModule } from 'nest-turn-status';`,
      `import { RuntimeModule } from 'nest-turn-status/runtime';`,
      `declare const cwd: string, dataDir: string;`,
    ].join('\n'),
    after: 'export class AppModule {}',
  },
  'src/cluster/cluster.module.ts': {
    before: [
      `import { ClusterModule, RedisSessionOwnership } from 'nest-turn-status/cluster';`,
      `import { RuntimeModule } from 'nest-turn-status/runtime';`,
      `declare const redisUrl: string, nodeId: string, workspaces: string[], dataDir: string;`,
    ].join('\n'),
  },
  'src/turns/turns-openapi.ts': {
    before: [
      `import type { INestApplication } from '@nestjs/common';`,
      `import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';`,
      `import { documentTurnRoutes } from 'nest-turn-status';`,
      `declare const app: INestApplication;`,
    ].join('\n'),
  },
  'src/turns/turns.module.ts': {
    before: [
      `import type { DynamicModule, Type } from '@nestjs/common';`,
      `import { TurnsModule, type SessionClientLookup } from 'nest-turn-status';`,
      `import { MyBridge, MyRuntimeModule, MyTranscriptScan as MyScan } from './my-runtime.js';`,
      `declare const runtime: DynamicModule, SessionRegistry: Type<SessionClientLookup>;`,
    ].join('\n'),
  },
};
