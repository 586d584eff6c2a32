import { TERMINAL_OVERLAY_SIZE, TRANSCRIPT_SCAN_LIMITS } from '../turns/rules/limits.js';
import { IDEMPOTENCY_DEFAULTS } from '../idempotency/idempotency-options.js';
import type { IdempotencyLimits } from '../idempotency/idempotency-store.js';
import type { Workspace } from '../sessions/workspace.js';
import { workspaceKey } from '../transcript/chat-recording.service.js';
import type { TranscriptScanLimits } from '../transcript/jsonl-transcript-scan.service.js';
import type { RuntimeModuleOptions } from './runtime.module-definition.js';

/** A comment this often keeps proxies from cutting an idle SSE stream (SPEC §19). */
export const SSE_HEARTBEAT_MS = 15_000;

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
    this.chatRecording = options.chatRecording ?? true;
    this.maxPendingPrompts = options.maxPendingPrompts ?? 5;
    this.promptDeadlineMs = options.promptDeadlineMs;
    this.overlaySize = options.overlaySize ?? TERMINAL_OVERLAY_SIZE;
    this.scanLimits = { ...TRANSCRIPT_SCAN_LIMITS, ...options.scanLimits };
    this.maxSessions = options.maxSessions ?? 1_000;
    this.maxSseStreams = options.maxSseStreams ?? 1_000;
    this.maxSseStreamsPerSession = options.maxSseStreamsPerSession ?? 16;
    this.sseHeartbeatMs = options.sseHeartbeatMs ?? SSE_HEARTBEAT_MS;
    this.maxPromptChars = options.maxPromptChars ?? 1024 * 1024;
    this.maxTranscriptBytes = options.maxTranscriptBytes ?? TRANSCRIPT_SCAN_LIMITS.maxSnapshotBytes;
    this.idempotency = {
      maxKeys: options.maxIdempotencyKeys ?? IDEMPOTENCY_DEFAULTS.maxKeys,
      ttlMs: options.idempotencyTtlMs ?? IDEMPOTENCY_DEFAULTS.ttlMs,
    };
  }

  get primary(): Workspace {
    return this.workspaces[0]!;
  }
}
