import { Module, type DynamicModule } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LostPromptSweep } from '../sessions/lost-prompt-sweep.js';
import { SessionOwnership } from '../sessions/session-ownership.js';
import { SessionRegistry } from '../sessions/session-registry.js';
import { SessionWriteFence } from '../sessions/session-write-fence.js';
import { UnownedSessions } from '../sessions/unowned-sessions.js';
import { CHAT_RECORDING_OPTIONS, type ChatRecordingOptions } from '../transcript/chat-recording.service.js';
import { TurnsModule } from '../turns/turns.module.js';
import { RuntimeModule } from './runtime.module.js';

/** An ownership that confirms only the sessions it was told it owns. */
class OwnsSome extends SessionOwnership {
  constructor(private readonly owned: ReadonlySet<string>) {
    super();
  }
  claim(): Promise<void> {
    return Promise.resolve();
  }
  release(): Promise<void> {
    return Promise.resolve();
  }
  confirm(sessionId: string): boolean {
    return this.owned.has(sessionId);
  }
}

@Module({})
class PortsModule {}

/** What a cluster binds (docs/cluster.md#ownership-ports): a fence of 7 for `fenced`, and a sweep that may take nothing yet. */
function clusterPorts(asked: string[]): DynamicModule {
  const fence: SessionWriteFence = { mayWrite: (id) => id === 'fenced', fenceOf: (id) => (id === 'fenced' ? 7 : undefined) };
  const unowned: UnownedSessions = {
    unownedSweepMs: 60_000,
    mayClaimUnowned: () => (asked.push('mayClaimUnowned'), false),
    seenUnowned: () => Promise.resolve(false),
  };
  return {
    module: PortsModule,
    providers: [
      { provide: SessionWriteFence, useValue: fence },
      { provide: UnownedSessions, useValue: unowned },
    ],
    exports: [SessionWriteFence, UnownedSessions],
  };
}

describe("RuntimeModule and the ownership's ports", () => {
  let dir: string;
  let app: TestingModule;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'runtime-ports-'))));
  afterEach(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function compile(imports: DynamicModule[]): Promise<TestingModule> {
    const runtime = RuntimeModule.forRoot({
      workspaces: [dir],
      dataDir: dir,
      chatRecording: false,
      ownership: { useValue: new OwnsSome(new Set(['owned'])) },
      imports,
    });
    const turns = TurnsModule.forRoot({ imports: [runtime], sessionLookup: SessionRegistry });
    app = await Test.createTestingModule({ imports: [runtime, turns] }).compile();
    return app;
  }

  it('a single daemon writes what its ownership confirms, with no fence, and sweeps what it finds', async () => {
    const options = (await compile([])).get<ChatRecordingOptions>(CHAT_RECORDING_OPTIONS);
    expect([await options.mayWrite!('owned'), await options.mayWrite!('other')]).toEqual([true, false]);
    expect(options.fenceOf!('owned')).toBeUndefined();
    await expect(app.get(LostPromptSweep).sweep()).resolves.toBe(0);
  });

  it("with a cluster's ports imported, the writers ask its fence and the sweep its view of unowned sessions", async () => {
    const asked: string[] = [];
    const options = (await compile([clusterPorts(asked)])).get<ChatRecordingOptions>(CHAT_RECORDING_OPTIONS);
    expect([await options.mayWrite!('owned'), await options.mayWrite!('fenced')]).toEqual([false, true]);
    expect([options.fenceOf!('fenced'), options.fenceOf!('owned')]).toEqual([7, undefined]);
    await expect(app.get(LostPromptSweep).sweep()).resolves.toBe(0);
    expect(asked).toEqual(['mayClaimUnowned']);
  });
});
