/** What the runtime (and a cluster node) configures of the `ChatRecordingService`. */
export interface ChatRecordingOptions {
  /** Root of all transcripts: `<dataDir>/<workspaceKey>/chats/<sessionId>.jsonl`. */
  dataDir: string;
  /** When false nothing is written (and nothing can be found after a restart). */
  enabled: boolean;
  /** Rewind, fork and load refuse a larger transcript (`413 transcript_too_large`). @default 256 MiB */
  maxTranscriptBytes?: number;
  /**
   * Asked before each write; `false` drops it. A cluster node that lost a
   * session's lease must not append to the transcript its new owner writes.
   * @default always true
   */
  mayWrite?: (sessionId: string) => boolean | Promise<boolean>;
  /**
   * The fence of the lease this node holds on the session (cluster mode),
   * carried by every line written to its transcript and ledger, so readers
   * skip a stale owner's lines. @default none (a single daemon)
   */
  fenceOf?: (sessionId: string) => number | undefined;
}

/** The injection token of {@link ChatRecordingOptions}. */
export const CHAT_RECORDING_OPTIONS = Symbol('CHAT_RECORDING_OPTIONS');
