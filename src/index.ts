// Public API of nest-turn-status.

// The reusable module.
export * from './turns/index.js';
export { ClientIdGuard, CLIENT_ID_REQUEST_KEY } from './clients/client-id.guard.js';
export { ClientId } from './clients/client-id.decorator.js';
export { ClientIdOptions, DEFAULT_CLIENT_ID_HEADER } from './clients/client-id-options.js';
export { SessionClientLookup } from './clients/session-client-lookup.js';
export { ApiException } from './common/api-exception.js';
export { ApiExceptionFilter } from './common/api-exception.filter.js';
export { Clock, SystemClock } from './common/clock.js';
export { TURN_LIMITS, TERMINAL_OVERLAY_SIZE, TRANSCRIPT_SCAN_LIMITS, RESULT_TEXT_TRUNCATED } from './common/limits.js';
export { truncateCodeUnits } from './common/truncate-code-units.js';
export { normalizeTurnError } from './common/normalize-turn-error.js';

// The reference runtime.
export { RuntimeModule, type RuntimeModuleOptions } from './runtime/runtime.module.js';
export { PromptBridge } from './bridge/prompt-bridge.js';
export { TerminalOverlay } from './bridge/terminal-overlay.js';
export { Session } from './sessions/session.js';
export { SessionRegistry } from './sessions/session-registry.js';
export { SessionsService } from './sessions/sessions.service.js';
export { ChatRecordingService } from './transcript/chat-recording.service.js';
export { JsonlTranscriptScanService } from './transcript/jsonl-transcript-scan.service.js';
export { AgentEngine, type EngineSession, type EngineUpdate, type EngineTurnRequest } from './engines/agent-engine.js';
export { EchoEngine } from './engines/echo.engine.js';
export { AcpEngine } from './engines/acp.engine.js';
export { FinalAnswerAccumulator } from './engines/final-answer-accumulator.js';

// The daemon.
export { createApp } from './daemon/create-app.js';
export { DaemonModule } from './daemon/daemon.module.js';
export { loadDaemonConfig, type DaemonConfig } from './daemon/daemon-config.js';
