import { TERMINAL_OVERLAY_SIZE, TRANSCRIPT_SCAN_LIMITS } from '../turns/rules/limits.js';
import type { IdempotencyLimits } from '../idempotency/idempotency-store.js';
import type { Workspace } from '../sessions/workspace.js';
import { workspaceKey } from '../transcript/chat-recording.service.js';
import type { TranscriptScanLimits } from '../transcript/jsonl-transcript-scan.service.js';
import { SSE_HEARTBEAT_MS } from '../events/events.settings.js';
import { valuesOf, type SettingValues } from '../common/settings/setting.js';
import type { RuntimeModuleOptions } from './runtime.module-definition.js';
import { RUNTIME_SETTINGS } from './runtime.settings.js';

/**
 * The runtime's effective configuration: {@link RuntimeModuleOptions} with
 * every default applied. Injectable, so a host can report what is in force
 * (the daemon's `/capabilities` does).
 *
 * @publicApi
 */
export class RuntimeSettings {
  /** Every runtime setting in force by option name: the rows of `RUNTIME_SETTINGS`, defaults applied. */
  readonly values: SettingValues<typeof RUNTIME_SETTINGS>;
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
    const values = valuesOf(RUNTIME_SETTINGS, options);
    this.values = values;
    this.dataDir = options.dataDir;
    this.chatRecording = values.chatRecording;
    this.maxPendingPrompts = values.maxPendingPrompts;
    this.promptDeadlineMs = values.promptDeadlineMs;
    this.overlaySize = options.overlaySize ?? TERMINAL_OVERLAY_SIZE;
    this.scanLimits = { ...TRANSCRIPT_SCAN_LIMITS, ...options.scanLimits };
    this.maxSessions = values.maxSessions;
    this.maxSseStreams = values.maxSseStreams;
    this.maxSseStreamsPerSession = values.maxSseStreamsPerSession;
    this.sseHeartbeatMs = options.sseHeartbeatMs ?? SSE_HEARTBEAT_MS;
    this.maxPromptChars = values.maxPromptChars;
    this.maxTranscriptBytes = values.maxTranscriptBytes;
    this.idempotency = { maxKeys: values.maxIdempotencyKeys, ttlMs: values.idempotencyTtlMs };
  }

  get primary(): Workspace {
    return this.workspaces[0]!;
  }
}
