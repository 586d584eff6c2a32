// A host app exactly as the README documents: its own in-memory providers,
// handed to TurnsModule by an imported module. Prints its URL, then serves.
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BridgeOverlayProvider, TerminalOverlay, TranscriptScanService, TurnsModule } from 'nest-turn-status';

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
  hasSession = (sessionId) => sessionId === SESSION;
  isClientRegistered = (_sessionId, clientId) => clientId === 'host-client';
  getLive = (_sessionId, promptId) =>
    promptId === undefined || promptId === 'p-live'
      ? { sessionId: SESSION, state: 'running', promptId: 'p-live', queuedAt: 4, startedAt: 5 }
      : undefined;
}

class MemoryScan extends TranscriptScanService {
  findTurnResult = async (sessionId, promptId) =>
    promptId === 'p-old' ? { sessionId, state: 'completed', promptId, endedAt: 0, resultText: 'from the transcript' } : undefined;
  findNewestTurnResult = async () => undefined;
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

const app = await NestFactory.create(AppModule, { logger: false });
await app.listen(0, '127.0.0.1');
console.log(JSON.stringify({ url: await app.getUrl() }));
