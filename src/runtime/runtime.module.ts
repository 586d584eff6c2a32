import { Module, type DynamicModule } from '@nestjs/common';
import { BRIDGE_OPTIONS } from '../bridge/bridge-options.js';
import { PromptBridge } from '../bridge/prompt-bridge.js';
import { Clock, SystemClock } from '../common/clock.js';
import { AgentEngine } from '../engines/agent-engine.js';
import { SessionEventBus } from '../events/session-event-bus.js';
import { RUNTIME_WORKSPACES } from '../sessions/runtime-options.js';
import { SessionRegistry } from '../sessions/session-registry.js';
import { SessionsService } from '../sessions/sessions.service.js';
import type { Workspace } from '../sessions/workspace.js';
import { CHAT_RECORDING_OPTIONS, ChatRecordingService, workspaceKey } from '../transcript/chat-recording.service.js';
import { JsonlTranscriptScanService, TRANSCRIPT_SCAN_OPTIONS, type TranscriptScanLimits } from '../transcript/jsonl-transcript-scan.service.js';
import { BridgeOverlayProvider } from '../turns/bridge-overlay.provider.js';
import { TranscriptScanService } from '../turns/transcript-scan.service.js';
import { TRANSCRIPT_SCAN_LIMITS } from '../common/limits.js';

/** Configuration of the reference runtime. */
export interface RuntimeModuleOptions {
  /** Absolute workspace paths; the first is primary. */
  workspaces: string[];
  dataDir: string;
  chatRecording: boolean;
  maxPendingPrompts: number;
  promptDeadlineMs?: number;
  /** The agent engine sessions run prompts through. */
  engine: AgentEngine;
  /** Replaces the system clock (tests). */
  clock?: Clock;
  /** Overrides the scan window (tests). */
  scanLimits?: Partial<TranscriptScanLimits>;
}

/**
 * The reference runtime behind `TurnsModule`: prompt bridge, sessions, JSONL
 * recording and scanning, events, and an engine. Exports the two provider
 * tokens `TurnsModule` needs, plus the services the daemon's routes use.
 */
@Module({})
export class RuntimeModule {
  static forRoot(options: RuntimeModuleOptions): DynamicModule {
    const workspaces: Workspace[] = options.workspaces.map((cwd, index) => ({ id: workspaceKey(cwd), cwd, primary: index === 0 }));
    return {
      module: RuntimeModule,
      providers: [
        { provide: Clock, useValue: options.clock ?? new SystemClock() },
        { provide: AgentEngine, useValue: options.engine },
        { provide: RUNTIME_WORKSPACES, useValue: { workspaces } },
        { provide: BRIDGE_OPTIONS, useValue: { maxPendingPrompts: options.maxPendingPrompts, promptDeadlineMs: options.promptDeadlineMs } },
        { provide: CHAT_RECORDING_OPTIONS, useValue: { dataDir: options.dataDir, enabled: options.chatRecording } },
        { provide: TRANSCRIPT_SCAN_OPTIONS, useValue: { ...TRANSCRIPT_SCAN_LIMITS, ...options.scanLimits } },
        SessionEventBus,
        SessionRegistry,
        PromptBridge,
        ChatRecordingService,
        JsonlTranscriptScanService,
        SessionsService,
        { provide: BridgeOverlayProvider, useExisting: PromptBridge },
        { provide: TranscriptScanService, useExisting: JsonlTranscriptScanService },
      ],
      exports: [
        BridgeOverlayProvider,
        TranscriptScanService,
        PromptBridge,
        SessionsService,
        SessionEventBus,
        SessionRegistry,
        ChatRecordingService,
        Clock,
        RUNTIME_WORKSPACES,
        BRIDGE_OPTIONS,
      ],
    };
  }
}
