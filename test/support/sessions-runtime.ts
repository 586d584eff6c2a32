// The runtime's sessions, bridge and transcript in one testing module, with an
// ownership the spec can watch, refuse and take away.
import { Test } from '@nestjs/testing';
import { apiError } from '../../src/errors/api-errors.js';
import { PromptBridge } from '../../src/bridge/prompt-bridge.js';
import { SessionEventBus } from '../../src/events/session-event-bus.js';
import { RuntimeModule } from '../../src/runtime/runtime.module.js';
import { SessionOwnership } from '../../src/sessions/session-ownership.js';
import { SessionsService } from '../../src/sessions/sessions.service.js';
import { ScriptedEngine } from '../../src/testing/scripted-engine.js';
import { ChatRecordingService } from '../../src/transcript/chat-recording.service.js';
import { TurnsModule } from '../../src/turns/turns.module.js';
import { tempDir } from './test-daemon.js';

/** An ownership that records what the runtime asks of it, refuses on demand, and can take a session away. */
export class RecordingOwnership extends SessionOwnership {
  readonly calls: string[] = [];
  readonly owned = new Set<string>();
  refuse?: string;

  claim(sessionId: string): Promise<void> {
    this.calls.push(`claim ${sessionId}`);
    if (this.refuse === sessionId) return Promise.reject(apiError('session_on_other_node', { sessionId, node: 'node-b' }));
    this.owned.add(sessionId);
    return Promise.resolve();
  }

  release(sessionId: string): Promise<void> {
    this.calls.push(`release ${sessionId}`);
    this.owned.delete(sessionId);
    return Promise.resolve();
  }

  confirm(sessionId: string): boolean {
    return this.owned.has(sessionId);
  }

  /** Another node took the session. */
  takeAway(sessionId: string): void {
    this.owned.delete(sessionId);
    this.lost(sessionId);
  }
}

export interface SessionsRuntime {
  sessions: SessionsService;
  bridge: PromptBridge;
  recorder: ChatRecordingService;
  events: SessionEventBus;
  engine: ScriptedEngine;
  ownership: RecordingOwnership;
  /** Shuts the module down (the application shutdown hooks run). */
  close(): Promise<void>;
}

/** `RuntimeModule` on a fresh data dir with the scripted engine and a {@link RecordingOwnership}. */
export async function startSessionsRuntime(options: { maxSessions?: number } = {}): Promise<SessionsRuntime> {
  const ownership = new RecordingOwnership();
  const engine = new ScriptedEngine();
  const dir = tempDir();
  const runtime = RuntimeModule.forRoot({
    workspaces: [dir],
    dataDir: dir,
    engine: { useValue: engine },
    ownership: { useValue: ownership },
    ...options,
  });
  // The runtime's routes are guarded by ClientIdGuard, which TurnsModule provides.
  const moduleRef = await Test.createTestingModule({ imports: [runtime, TurnsModule.forRoot({ imports: [runtime] })] }).compile();
  await moduleRef.init();
  return {
    sessions: moduleRef.get(SessionsService),
    bridge: moduleRef.get(PromptBridge),
    recorder: moduleRef.get(ChatRecordingService),
    events: moduleRef.get(SessionEventBus),
    engine,
    ownership,
    close: () => moduleRef.close(),
  };
}
