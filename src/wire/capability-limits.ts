/**
 * `GET /capabilities` → `limits`: the limits in force. Most are settings the
 * rows of `DAEMON_SETTINGS` advertise (a row's `limit` names its field here),
 * the rest fixed by the turn rules. A daemon may send more; a client reads
 * them by name.
 *
 * @publicApi
 */
export interface CapabilityLimits {
  maxPendingPromptsPerSession: number;
  /** Server deadline per prompt, when one is set (`TURNS_PROMPT_DEADLINE_MS`). */
  promptDeadlineMs?: number;
  /** Token budget per prompt, when one is set (`TURNS_PROMPT_MAX_TOKENS`). */
  promptMaxTokens?: number;
  promptTextMaxLength: number;
  resultTextMaxLength: number;
  terminalOverlaySize: number;
  transcriptScanMaxPages: number;
  transcriptScanPageRecords: number;
  transcriptScanPageBytes: number;
  maxSessions: number;
  /** A session idle this long is closed (0: never). */
  sessionIdleTimeoutMs: number;
  maxSseStreams: number;
  maxSseStreamsPerSession: number;
  maxPromptChars: number;
  maxTranscriptBytes: number;
  /** Longest wait of a turn request (`waitMs`, `Prefer: wait`). */
  maxWaitMs: number;
  maxWaiters: number;
  maxBodyBytes: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  maxIdempotencyKeys: number;
  idempotencyTtlMs: number;
  maxWebhooksPerSession: number;
  webhookTimeoutMs: number;
  webhookMaxAttempts: number;
  webhookRetryBaseMs: number;
}
