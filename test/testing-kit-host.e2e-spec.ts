import { Controller, Get, Injectable, Module, Param, type INestApplication } from '@nestjs/common';
import request from 'supertest';
import { apiError, BridgeOverlayProvider, TerminalOverlay, TranscriptScanService, TurnsModule, TurnStatusService } from '../src/index.js';
import type { LiveTurnStatus, SettledTurnStatus } from '../src/index.js';
import { createTurnsTestingApp, InMemoryBridgeOverlay } from '../src/testing/index.js';
import { ADAPTERS } from './support/test-daemon.js';

/** A host's own live side: one session, `mine`, running `p-host`. */
@Injectable()
class HostBridge extends BridgeOverlayProvider {
  readonly overlay = new TerminalOverlay();
  hasSession = (sessionId: string) => sessionId === 'mine';
  isClientRegistered = (sessionId: string, clientId: string) => sessionId === 'mine' && clientId === 'me';
  getLive(sessionId: string, promptId?: string): LiveTurnStatus | undefined {
    if (sessionId !== 'mine' || (promptId !== undefined && promptId !== 'p-host')) return undefined;
    return { sessionId, state: 'running', promptId: 'p-host', promptText: 'from the host', queuedAt: 1, startedAt: 2 };
  }
}

/** A host's own persisted side, in memory, so without promises: `old` settled long ago, `torn` unreadable. */
@Injectable()
class HostTranscript extends TranscriptScanService {
  private readonly old: SettledTurnStatus = { sessionId: 'mine', state: 'completed', promptId: 'old', endedAt: 3, resultText: 'on disk' };
  findTurnResult(sessionId: string, promptId: string): SettledTurnStatus | undefined {
    if (promptId === 'torn') throw apiError('transcript_snapshot_unavailable', { sessionId });
    return sessionId === 'mine' && promptId === 'old' ? this.old : undefined;
  }
  findNewestTurnResult(sessionId: string): SettledTurnStatus | undefined {
    return sessionId === 'mine' ? this.old : undefined;
  }
}

@Module({
  providers: [
    { provide: BridgeOverlayProvider, useClass: HostBridge },
    { provide: TranscriptScanService, useClass: HostTranscript },
  ],
  exports: [BridgeOverlayProvider, TranscriptScanService],
})
class HostRuntimeModule {}

/** A host route answered from the host's TurnsModule. */
@Controller('summary/:id')
class SummaryController {
  constructor(private readonly turns: TurnStatusService) {}
  @Get()
  async summary(@Param('id') id: string) {
    return { state: (await this.turns.getCurrent(id)).state };
  }
}

const HOST_OPTIONS = { clientIdHeader: 'X-Host-Client', requireClientId: true };
const CLIENT_ID_REQUIRED = { error: 'A client id is required', code: 'invalid_client_id' };

/** Its ports from an imported module, as the README mounts them. */
@Module({ imports: [TurnsModule.forRoot({ ...HOST_OPTIONS, imports: [HostRuntimeModule] })], controllers: [SummaryController] })
class FeatureModule {}
@Module({ imports: [FeatureModule] })
class AppModule {}

/** Its ports named by class. */
@Module({
  imports: [TurnsModule.forRoot({ ...HOST_OPTIONS, bridgeOverlay: HostBridge, transcriptScan: HostTranscript })],
  controllers: [SummaryController],
})
class ByClassAppModule {}

/** A host runtime whose bridge needs a service that no module provides: it cannot boot. */
@Injectable()
class SessionStore {}
@Injectable()
class BridgeOverStore extends HostBridge {
  constructor(readonly store: SessionStore) {
    super();
  }
}
@Module({ imports: [TurnsModule.forRoot({ bridgeOverlay: BridgeOverStore, transcriptScan: HostTranscript })] })
class UnbootableAppModule {}

/** A host module without TurnsModule. */
@Controller('plain')
class PlainController {
  @Get()
  ping() {
    return { plain: true };
  }
}
/** Its routes need TurnStatusService, which only the kit's TurnsModule gives it (as `nest new`'s AppModule in our stock host). */
@Module({ controllers: [PlainController, SummaryController] })
class PlainModule {}

describe.each(ADAPTERS)("the testing kit tests the host's own TurnsModule and ports (%s)", (adapter) => {
  let app: INestApplication | undefined;
  const http = () => request(app!.getHttpServer());
  afterEach(() => app?.close());

  it.each([
    ['from an imported module', AppModule],
    ['by class', ByClassAppModule],
  ])('imports: [AppModule] answers from the ports the host mounts (%s)', async (_, host) => {
    const kit = await createTurnsTestingApp({ adapter, imports: [host] });
    app = kit.app;
    expect(kit.ports).toBe('host');
    expect(kit.bridge).toBeInstanceOf(HostBridge);
    expect(kit.transcript).toBeInstanceOf(HostTranscript);
    const current = await http().get('/session/mine/turns/current').set('X-Host-Client', 'me').expect(200);
    expect(current.body).toMatchObject({ state: 'running', promptId: 'p-host', promptText: 'from the host' });
    // Its scan answers without a promise; what it throws is answered as a thrown promise would be.
    const old = await http().get('/session/mine/turns/old').set('X-Host-Client', 'me').expect(200);
    expect(old.body).toMatchObject({ state: 'completed', resultText: 'on disk' });
    const torn = await http().get('/session/mine/turns/torn').set('X-Host-Client', 'me').expect(409);
    expect(torn.body).toMatchObject({ code: 'transcript_snapshot_unavailable', sessionId: 'mine' });
    // The host's options hold: its header, and no anonymous poll.
    expect((await http().get('/session/mine/turns/current').expect(400)).body).toEqual(CLIENT_ID_REQUIRED);
    await http().get('/summary/mine').expect(200, { state: 'running' });
    // No second TurnsModule of the kit's: its in-memory sessions are nowhere.
    await http().get('/session/s1/turns/current').set('X-Host-Client', 'me').expect(404);
  });

  it("ports: 'in-memory' replaces the host's two ports and keeps its TurnsModule and options", async () => {
    const kit = await createTurnsTestingApp({ adapter, imports: [AppModule], ports: 'in-memory' });
    app = kit.app;
    expect(kit.ports).toBe('in-memory');
    expect(kit.bridge).toBeInstanceOf(InMemoryBridgeOverlay);
    await http().get('/session/mine/turns/current').set('X-Host-Client', 'me').expect(404);
    kit.bridge.addSession('s1', { clientIds: ['c1'] });
    const promptId = kit.bridge.admit('s1', 'hello');
    await http().get('/summary/s1').expect(200, { state: 'queued' });
    expect((await http().get(`/session/s1/turns/${promptId}`).set('X-Host-Client', 'c1').expect(200)).body.state).toBe('queued');
    expect((await http().get(`/session/s1/turns/${promptId}`).expect(400)).body).toEqual(CLIENT_ID_REQUIRED);
  });

  it("ports: 'in-memory' mounts the kit's TurnsModule beside host modules that have none", async () => {
    const kit = await createTurnsTestingApp({ adapter, imports: [PlainModule], ports: 'in-memory' });
    app = kit.app;
    kit.bridge.addSession('s1');
    await http().get('/plain').expect(200, { plain: true });
    await http().get('/summary/s1').expect(200, { state: 'idle' });
    await http().get('/session/s1/turns/current').expect(200, { sessionId: 's1', state: 'idle' });
  });

  it("a host that cannot boot rejects with Nest's own error, naming what is missing (no process exit)", async () => {
    const exit = jest.spyOn(process, 'exit').mockImplementation(() => undefined as never);
    try {
      await expect(createTurnsTestingApp({ adapter, imports: [UnbootableAppModule] })).rejects.toThrow(
        /can't resolve dependencies of the BridgeOverStore \(\?\)[\s\S]*SessionStore at index \[0\]/,
      );
      // The kit's own two modes: a provider of the test that cannot be built.
      for (const mode of [{}, { imports: [AppModule], ports: 'in-memory' as const }]) {
        await expect(createTurnsTestingApp({ adapter, ...mode, providers: [BridgeOverStore] })).rejects.toThrow(
          /SessionStore at index \[0\]/,
        );
      }
      expect(exit).not.toHaveBeenCalled();
    } finally {
      exit.mockRestore();
    }
  });

  it('without TurnsModule in the imports, refuses and says how to ask for the in-memory ports', async () => {
    await expect(createTurnsTestingApp({ adapter, imports: [PlainModule] })).rejects.toThrow(
      /none of the imported modules mounts TurnsModule.*\{ ports: 'in-memory' \}/,
    );
  });

  it("refuses options that the host's own forRoot decides", async () => {
    await expect(createTurnsTestingApp({ adapter, imports: [AppModule], ports: 'in-memory', clientIdHeader: 'X-Other' })).rejects.toThrow(
      /clientIdHeader cannot apply: the imported modules mount TurnsModule/,
    );
    const bridge = new InMemoryBridgeOverlay();
    await expect(createTurnsTestingApp({ adapter, imports: [AppModule], bridge } as never)).rejects.toThrow(/bridge cannot apply/);
  });
});

describe('the types of the testing kit (checked by tsc)', () => {
  // As a `nest new` e2e declares what its beforeEach sets.
  let kit: Awaited<ReturnType<typeof createTurnsTestingApp>>;
  beforeEach(async () => {
    kit = await createTurnsTestingApp({ imports: [AppModule] });
  });
  afterEach(() => kit.app.close());

  it('take the host form in a variable typed from ReturnType, and infer each form where it is asked for', async () => {
    const bridge: BridgeOverlayProvider = kit.bridge;
    // @ts-expect-error the host's own bridge, not the kit's in-memory one
    expect(typeof kit.bridge.addSession).toBe('undefined');
    // Its server is Node's, so supertest takes it without an `any`.
    const server: import('node:http').Server = kit.app.getHttpServer();
    expect([kit.ports, bridge, server]).toEqual(['host', expect.any(HostBridge), expect.anything()]);

    const host = await createTurnsTestingApp({ imports: [AppModule] });
    const ports: 'host' = host.ports;
    const memory = await createTurnsTestingApp();
    memory.bridge.addSession('s1');
    const replaced = await createTurnsTestingApp({ imports: [AppModule], ports: 'in-memory' });
    replaced.bridge.addSession('s1');
    expect([ports, memory.ports, replaced.ports]).toEqual(['host', 'in-memory', 'in-memory']);
    await Promise.all([host.app.close(), memory.app.close(), replaced.app.close()]);
  });
});
