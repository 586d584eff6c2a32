import type { Clock } from '../common/clock.js';
import { valuesOf, type SettingOptions, type SettingValues } from '../common/settings/setting.js';
import { BRIDGE_SETTINGS } from '../bridge/bridge.settings.js';
import { EVENT_SETTINGS, SSE_HEARTBEAT_MS } from '../events/events.settings.js';
import type { IdempotencyLimits } from '../idempotency/idempotency-store.js';
import { IDEMPOTENCY_SETTINGS } from '../idempotency/idempotency.settings.js';
import { PERMISSION_SETTINGS } from '../permissions/permissions.settings.js';
import { SESSION_SETTINGS } from '../sessions/sessions.settings.js';
import type { Workspace } from '../sessions/workspace.js';
import { workspaceKey } from '../transcript/transcript-paths.js';
import type { TranscriptScanLimits } from '../transcript/jsonl-transcript-scan.service.js';
import { TRANSCRIPT_SETTINGS } from '../transcript/transcript.settings.js';
import { TERMINAL_OVERLAY_SIZE, TRANSCRIPT_SCAN_LIMITS } from '../turns/rules/limits.js';
import type { WebhookOptions } from '../webhooks/webhooks.settings.js';

/** The runtime's settings, each owned by its feature: the flat fields of `RuntimeModuleOptions`. */
export const RUNTIME_SETTINGS = {
  ...TRANSCRIPT_SETTINGS,
  ...SESSION_SETTINGS,
  ...BRIDGE_SETTINGS,
  ...EVENT_SETTINGS,
  ...IDEMPOTENCY_SETTINGS,
  ...PERMISSION_SETTINGS,
} as const;

/**
 * Configuration of {@link RuntimeModule}. Its flat limits are the rows of `RUNTIME_SETTINGS`: each means and defaults
 * to what its `TURNS_*` variable does (docs/configuration.md).
 *
 * @publicApi
 */
export interface RuntimeModuleOptions extends SettingOptions<typeof RUNTIME_SETTINGS> {
  /** Absolute workspace paths; the first is primary. */
  workspaces: string[];
  /** Root of the transcripts: `<dataDir>/<workspace>/chats/<sessionId>.jsonl`. */
  dataDir: string;
  /** Terminal statuses kept in memory per session. @default TERMINAL_OVERLAY_SIZE (64) */
  overlaySize?: number;
  /** Bounds of one backward transcript scan. @default TRANSCRIPT_SCAN_LIMITS */
  scanLimits?: Partial<TranscriptScanLimits>;
  /** A `: heartbeat` comment is sent on every event stream this often, in ms. @default 15000 */
  sseHeartbeatMs?: number;
  /** Turn webhooks: the operator's endpoint, the SSRF allow list, timeouts and retries. */
  webhooks?: WebhookOptions;
  /** Source of time. @default the system clock */
  clock?: Clock;
}

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
