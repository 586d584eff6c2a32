// nest-turn-status/runtime: the reference runtime behind TurnsModule.

import { assertSingleCopy } from '../common/single-copy.js';

// One copy of the injection tokens per process (see assertSingleCopy).
assertSingleCopy();

export { RuntimeModule } from './runtime.module.js';
export type { RuntimeModuleExtras, AgentEngineProvider, SessionOwnershipProvider } from './runtime.module-definition.js';
export { RuntimeSettings, type RuntimeModuleOptions } from './runtime.settings.js';
export { PromptBridge, type AdmissionGate } from '../bridge/prompt-bridge.js';
export type { TurnTransition } from '../bridge/turn-transition.js';
export type { TurnHooks, HookedTurn } from '../bridge/turn-hooks.js';
export { SessionRunner, type SessionPrompt } from '../bridge/session-runner.js';
export { SessionsService } from '../sessions/sessions.service.js';
export { IdleSessionReaper } from '../sessions/idle-session-reaper.js';
export { SessionRewindService, type RewindSnapshot, type RewindResult } from '../sessions/session-rewind.service.js';
export { SessionPresenceService, type SessionStatus, type Heartbeat } from '../sessions/session-presence.service.js';
export { SessionOwnership, LocalSessionOwnership } from '../sessions/session-ownership.js';
export { SessionWriteFence, OwnerWriteFence } from '../sessions/session-write-fence.js';
export { UnownedSessions, LocalUnownedSessions } from '../sessions/unowned-sessions.js';
export { ClusterView, type ClusterState } from '../sessions/cluster-view.js';
export type { Workspace } from '../sessions/workspace.js';
export { JsonlTranscriptScanService, type TranscriptScanLimits } from '../transcript/jsonl-transcript-scan.service.js';
export { PromptLedger } from '../ledger/prompt-ledger.js';
export { LedgerTranscriptScanService } from '../ledger/ledger-transcript-scan.service.js';
export type { LedgerRecord, LedgerInFlightRecord, LedgerTerminalRecord, LedgerTerminalState } from '../ledger/ledger-record.js';
export { SessionEventBus, type StreamFrame } from '../events/session-event-bus.js';
export type {
  SessionEvent,
  SessionEventData,
  SessionEventKind,
  SessionEventType,
  SessionStreamMarker,
  SessionStreamMarkerData,
} from '../wire/session-event.js';
export {
  AgentEngine,
  type EngineCloseOptions,
  type EnginePermissionOutcome,
  type EnginePermissionRequest,
  type EngineSession,
  type EngineSessionContext,
  type EngineTurnRequest,
  type EngineTurnResult,
  type EngineUpdate,
} from '../engines/agent-engine.js';
export { TurnUsageSum, type UsageReport } from '../turns/rules/turn-usage-sum.js';
export { EchoEngine } from '../engines/echo.engine.js';
export { FinalAnswerAccumulator } from '../engines/final-answer-accumulator.js';
