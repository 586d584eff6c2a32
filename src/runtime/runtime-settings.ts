import { TERMINAL_OVERLAY_SIZE, TRANSCRIPT_SCAN_LIMITS } from '../turns/rules/limits.js';
import type { IdempotencyLimits } from '../idempotency/idempotency-store.js';
import type { Workspace } from '../sessions/workspace.js';
import { workspaceKey } from '../transcript/chat-recording.service.js';
import type { TranscriptScanLimits } from '../transcript/jsonl-transcript-scan.service.js';
import { SSE_HEARTBEAT_MS } from '../events/events.settings.js';
import { defaultsOf } from '../common/settings/setting.js';
import type { RuntimeModuleOptions } from './runtime.module-definition.js';
import { RUNTIME_SETTINGS } from './runtime.settings.js';

export { SSE_HEARTBEAT_MS } from '../events/events.settings.js';

const DEFAULTS = defaultsOf(RUNTIME_SETTINGS);

/**
 * The runtime's effective configuration: {@link RuntimeModuleOptions} with
 * every default applied. Injectable, so a host can report what is in force
 * (the daemon's `/capabilities` does).
 *
 * @publicApi
 */
export class RuntimeSettings {
  /** Workspaces sessions belong to; the first is primary. */
  readonly workspaces: readonly Workspace[];
  readonly dataDir: string;
  readonly chatRecording: boolean;
  readonly maxPendingPrompts: number;
  readonly promptDeadlineMs?: number;
  readonly overlaySize: number;
  readonly scanLimits: TranscriptScanLimits;
  readonly maxSessions: number;
  readonly maxSseStreams: number;
  readonly maxSseStreamsPerSession: number;
  readonly sseHeartbeatMs: number;
  readonly maxPromptChars: number;
  readonly maxTranscriptBytes: number;
  readonly idempotency: IdempotencyLimits;

  constructor(options: RuntimeModuleOptions) {
    if (options.workspaces.length === 0) throw new Error('RuntimeModule needs at least one workspace');
    this.workspaces = options.workspaces.map((cwd, index) => ({ id: workspaceKey(cwd), cwd, primary: index === 0 }));
    this.dataDir = options.dataDir;
    this.chatRecording = options.chatRecording ?? DEFAULTS.chatRecording;
    this.maxPendingPrompts = options.maxPendingPrompts ?? DEFAULTS.maxPendingPrompts;
    this.promptDeadlineMs = options.promptDeadlineMs;
    this.overlaySize = options.overlaySize ?? TERMINAL_OVERLAY_SIZE;
    this.scanLimits = { ...TRANSCRIPT_SCAN_LIMITS, ...options.scanLimits };
    this.maxSessions = options.maxSessions ?? DEFAULTS.maxSessions;
    this.maxSseStreams = options.maxSseStreams ?? DEFAULTS.maxSseStreams;
    this.maxSseStreamsPerSession = options.maxSseStreamsPerSession ?? DEFAULTS.maxSseStreamsPerSession;
    this.sseHeartbeatMs = options.sseHeartbeatMs ?? SSE_HEARTBEAT_MS;
    this.maxPromptChars = options.maxPromptChars ?? DEFAULTS.maxPromptChars;
    this.maxTranscriptBytes = options.maxTranscriptBytes ?? DEFAULTS.maxTranscriptBytes;
    this.idempotency = {
      maxKeys: options.maxIdempotencyKeys ?? DEFAULTS.maxIdempotencyKeys,
      ttlMs: options.idempotencyTtlMs ?? DEFAULTS.idempotencyTtlMs,
    };
  }

  get primary(): Workspace {
    return this.workspaces[0]!;
  }
}
