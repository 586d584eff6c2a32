// A CommonJS Nest 11 host: the ESM package is loaded with require()
// (Node >= 20.19), and mounted exactly as the README documents, with its own
// in-memory providers (a host's, not the testing kit's).
require('reflect-metadata');
const { Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { BridgeOverlayProvider, TerminalOverlay, TranscriptScanService, TurnsModule } = require('nest-turn-status');

const SESSION = 'host-session';

class MemoryBridge extends BridgeOverlayProvider {
  overlay = new TerminalOverlay();
  constructor() {
    super();
    this.overlay.publish({
      sessionId: SESSION,
      state: 'completed',
      promptId: 'p-done',
      queuedAt: 1,
      startedAt: 2,
      endedAt: 3,
      resultText: 'done',
    });
  }
  hasSession(sessionId) {
    return sessionId === SESSION;
  }
  isClientRegistered(_sessionId, clientId) {
    return clientId === 'host-client';
  }
  getLive(_sessionId, promptId) {
    if (promptId !== undefined && promptId !== 'p-live') return undefined;
    return { sessionId: SESSION, state: 'running', promptId: 'p-live', queuedAt: 4, startedAt: 5 };
  }
}

class MemoryScan extends TranscriptScanService {
  async findTurnResult(sessionId, promptId) {
    return promptId === 'p-old' ? { sessionId, state: 'completed', promptId, endedAt: 0, resultText: 'from the transcript' } : undefined;
  }
  async findNewestTurnResult() {
    return undefined;
  }
}

class HostRuntimeModule {}
Module({
  providers: [
    { provide: BridgeOverlayProvider, useClass: MemoryBridge },
    { provide: TranscriptScanService, useClass: MemoryScan },
  ],
  exports: [BridgeOverlayProvider, TranscriptScanService],
})(HostRuntimeModule);

class AppModule {}
Module({ imports: [TurnsModule.forRoot({ imports: [HostRuntimeModule] })] })(AppModule);

async function bootstrap() {
  const app = await NestFactory.create(AppModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  console.log(JSON.stringify({ url: await app.getUrl() }));
}
bootstrap();
