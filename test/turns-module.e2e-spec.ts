import { Controller, Get, Injectable, Module, Param, UseGuards, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { ClientIdGuard } from '../src/client-id/client-id.guard.js';
import { BridgeOverlayProvider, TerminalOverlay, TranscriptScanService, TurnsModule } from '../src/index.js';
import type { LooseStatus as TurnStatus } from './support/loose-status.js';

// Not the testing kit, on purpose: this suite is a host implementing the ports itself.
/** A host's own runtime: one session, no live prompt, one persisted record. */
@Injectable()
class HostBridge extends BridgeOverlayProvider {
  readonly overlay = new TerminalOverlay();
  hasSession(sessionId: string): boolean {
    return sessionId === 'host-session';
  }
  isClientRegistered(_sessionId: string, clientId: string): boolean {
    return clientId === 'host-client';
  }
  getLive(): TurnStatus | undefined {
    return undefined;
  }
}

@Injectable()
class HostScan extends TranscriptScanService {
  calls = 0;
  async findTurnResult(sessionId: string, promptId: string): Promise<TurnStatus | undefined> {
    this.calls += 1;
    return promptId === 'p1' ? { sessionId, state: 'completed', promptId, endedAt: 5, resultText: 'from the host' } : undefined;
  }
  async findNewestTurnResult(sessionId: string): Promise<TurnStatus | undefined> {
    return this.findTurnResult(sessionId, 'p1');
  }
}

/** A host route reusing the exported guard. */
@Controller('host/session/:id')
class HostController {
  @Get('ping')
  @UseGuards(ClientIdGuard)
  ping(@Param('id') id: string) {
    return { id };
  }
}

@Module({
  providers: [
    { provide: BridgeOverlayProvider, useClass: HostBridge },
    { provide: TranscriptScanService, useClass: HostScan },
  ],
  exports: [BridgeOverlayProvider, TranscriptScanService],
})
class HostRuntimeModule {}

describe('TurnsModule mounted in a host app', () => {
  const cases: Array<[string, () => ReturnType<typeof TurnsModule.forRoot> | ReturnType<typeof TurnsModule.forRootAsync>]> = [
    [
      'forRoot with an imported runtime module',
      () => TurnsModule.forRoot({ imports: [HostRuntimeModule], clientIdHeader: 'X-Host-Client' }),
    ],
    [
      'forRoot with provider classes',
      () => TurnsModule.forRoot({ bridgeOverlay: HostBridge, transcriptScan: HostScan, clientIdHeader: 'X-Host-Client' }),
    ],
    [
      'forRootAsync',
      () => TurnsModule.forRootAsync({ imports: [HostRuntimeModule], useFactory: async () => ({ clientIdHeader: 'X-Host-Client' }) }),
    ],
  ];

  describe.each(cases)('%s', (_name, turnsModule) => {
    let app: INestApplication;
    beforeEach(async () => {
      const moduleRef = await Test.createTestingModule({ imports: [turnsModule()], controllers: [HostController] }).compile();
      // No filter of ours: the module's errors are HttpExceptions with the wire body.
      app = moduleRef.createNestApplication();
      await app.listen(0, '127.0.0.1');
    });
    afterEach(() => app.close());

    it('answers from the host providers, merging and serving from memory afterwards', async () => {
      const http = request(app.getHttpServer());
      const res = await http.get('/session/host-session/turns/p1').expect(200);
      expect(res.body).toEqual({ sessionId: 'host-session', state: 'completed', promptId: 'p1', endedAt: 5, resultText: 'from the host' });
      await http.get('/session/host-session/turns/p1').expect(200);
      expect((app.get(TranscriptScanService) as HostScan).calls).toBe(1); // the second poll came from memory
      const missing = await http.get('/session/host-session/turns/nope').expect(404);
      expect(missing.body).toEqual({ error: 'Prompt not found', code: 'prompt_not_found', sessionId: 'host-session', promptId: 'nope' });
      const unknown = await http.get('/session/other/turns/current').expect(404);
      expect(unknown.body).toEqual({ error: 'Session not found', code: 'session_not_found', sessionId: 'other' });
      const etag = res.headers.etag;
      await http.get('/session/host-session/turns/p1').set('If-None-Match', etag).expect(304);
    });

    it('applies the configured client id header, in the host routes too', async () => {
      const http = request(app.getHttpServer());
      await http.get('/session/host-session/turns/current').set('X-Host-Client', 'host-client').expect(200);
      const foreign = await http.get('/session/host-session/turns/current').set('X-Host-Client', 'someone-else').expect(400);
      expect(foreign.body).toMatchObject({ code: 'invalid_client_id', clientId: 'someone-else' });
      await http.get('/host/session/host-session/ping').set('X-Host-Client', 'bad id!').expect(400);
      await http.get('/host/session/host-session/ping').set('X-Host-Client', 'host-client').expect(200, { id: 'host-session' });
    });
  });

  it('refuses anonymous polls with requireClientId', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [TurnsModule.forRoot({ imports: [HostRuntimeModule], requireClientId: true })],
    }).compile();
    const app = moduleRef.createNestApplication();
    await app.init();
    try {
      const http = request(app.getHttpServer());
      await http.get('/session/host-session/turns/current').expect(400);
      await http.get('/session/host-session/turns/current').set('X-Qwen-Client-Id', 'host-client').expect(200);
    } finally {
      await app.close();
    }
  });
});
