// A runtime with the prompt ledger, its sessions, bridge, transcript and polls in one testing module,
// for the ledger's specs (src/ledger/prompt-ledger*.spec.ts).
import { Test, type TestingModule } from '@nestjs/testing';
import { PromptBridge, type TurnTransition } from '../../src/bridge/prompt-bridge.js';
import { PromptLedger } from '../../src/ledger/prompt-ledger.js';
import { RuntimeModule } from '../../src/runtime/runtime.module.js';
import type { RuntimeModuleOptions } from '../../src/runtime/runtime.settings.js';
import { SessionsService } from '../../src/sessions/sessions.service.js';
import { SessionRewindService } from '../../src/sessions/session-rewind.service.js';
import { ScriptedEngine } from '../../src/testing/scripted-engine.js';
import { ChatRecordingService } from '../../src/transcript/chat-recording.service.js';
import { TurnsModule } from '../../src/turns/turns.module.js';
import { TurnStatusService } from '../../src/turns/turn-status.service.js';
import { deferred } from './deferred.js';
import { tempDir } from './test-daemon.js';

export const text = (t: string) => [{ type: 'text' as const, text: t }];

export interface LedgerRuntime {
  module: TestingModule;
  sessions: SessionsService;
  rewinds: SessionRewindService;
  bridge: PromptBridge;
  ledger: PromptLedger;
  recorder: ChatRecordingService;
  polls: TurnStatusService;
  engine: ScriptedEngine;
  dir: string;
}

export async function startLedgerRuntime(
  dir = tempDir(),
  workspace = dir,
  options: Partial<RuntimeModuleOptions> = {},
): Promise<LedgerRuntime> {
  const engine = new ScriptedEngine();
  const runtime = RuntimeModule.forRoot({
    workspaces: [workspace],
    dataDir: dir,
    engine: { useValue: engine },
    promptDeadlineMs: 60_000,
    ...options,
  });
  const module = await Test.createTestingModule({ imports: [runtime, TurnsModule.forRoot({ imports: [runtime] })] }).compile();
  await module.init();
  return {
    module,
    sessions: module.get(SessionsService),
    rewinds: module.get(SessionRewindService),
    bridge: module.get(PromptBridge),
    ledger: module.get(PromptLedger),
    recorder: module.get(ChatRecordingService),
    polls: module.get(TurnStatusService),
    engine,
    dir,
  };
}

/** Resolves with the published terminal of `promptId`. */
export function settledOf(bridge: PromptBridge, promptId: () => string): Promise<TurnTransition> {
  const seen = deferred<TurnTransition>();
  const stop = bridge.onTransition((t) => t.kind === 'settled' && t.promptId === promptId() && (stop(), seen.resolve(t)));
  return seen.promise;
}
