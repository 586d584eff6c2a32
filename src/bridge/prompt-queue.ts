import type { PromptBlock } from '../turns/rules/turn-fields.js';
import type { TokenKind } from '../turns/rules/turn-usage.js';
import type { RecordedIdempotency } from '../transcript/transcript-record.js';
import type { LiveTurnStatus, TurnUsage } from '../turns/turn-status.js';
import type { TurnActivityCounter } from './turn-activity.js';
import type { TerminalFields } from './turn-status-projection.js';

/** An admitted prompt while it is queued or running, as the queue core keeps it. */
export interface QueuedPrompt {
  readonly promptId: string;
  readonly promptText: string;
  readonly queuedAt: number;
  readonly originatorClientId?: string;
  startedAt?: number;
  /** It was admitted behind another prompt, so its queue events are sent (docs/qwen-serve.md). */
  waited?: boolean;
  /** The terminal latch: set once, by whichever path publishes first (it outlives the overlay's bound). */
  published: boolean;
  /** The live status last projected, reused until the entry changes (so its bytes are serialized once). */
  status?: LiveTurnStatus;
  /** Counts the agent's updates while it runs. */
  counter?: TurnActivityCounter;
  /** Shows the counts to activity watchers once the refresh interval allows (only while someone watches). */
  activityTimer?: NodeJS.Timeout;
  /** The `Idempotency-Key` it was admitted with, and its answer, for the ledger and the transcript. */
  idempotency?: RecordedIdempotency;
  /** The turn's usage so far, as the Session sums it (a terminal the bridge makes carries it). */
  usage?: TurnUsage;
  /** Its admission's record is not yet synced: it is not dispatched until it is (see `AdmissionGate`). */
  held?: boolean;
}

/** What an admission carries besides the prompt, its client, deadline and key. */
export interface AdmissionOptions {
  /** Who asked (the request's principal), named in the approval audit. */
  readonly principal?: string;
  /** The prompt's own token budget, narrowing the daemon's (docs/operating.md#usage-and-token-budgets). */
  readonly maxTokens?: number;
}

/** An admitted prompt as the bridge runs it. */
export interface LiveEntry extends QueuedPrompt {
  readonly prompt: readonly PromptBlock[];
  /** The principal whose request admitted it, for the audit of its requests for approval. */
  readonly principal?: string;
  readonly abort: AbortController;
  /** Removal was requested; a running entry stays running until the Session settles. */
  removed: boolean;
  deadline?: NodeJS.Timeout;
  /** Settles once its admission is decided (acknowledged or withdrawn), its gate's handlers run; set while it is held. */
  decided?: Promise<void>;
  /** Its token budget (docs/operating.md#usage-and-token-budgets); none when unset. */
  maxTokens?: number;
  /** Tokens counted into the metrics so far, per kind. */
  tokensCounted?: Record<TokenKind, number>;
  /** A removal or deadline that came while it was held: published once its admission is acknowledged, dropped if withdrawn. */
  heldTerminal?: TerminalFields;
}

/** One session's FIFO, its running prompt and whether a rewind is being written. */
export class PromptQueue<E extends QueuedPrompt = QueuedPrompt> {
  running?: E;
  readonly queued: E[] = [];
  /** A rewind is being written: admissions wait it out (409). */
  rewinding = false;

  get pendingCount(): number {
    return this.queued.length + (this.running ? 1 : 0);
  }

  /** Running first, then the FIFO. */
  pending(): E[] {
    return this.running ? [this.running, ...this.queued] : [...this.queued];
  }

  find(promptId: string): E | undefined {
    return this.running?.promptId === promptId ? this.running : this.queued.find((e) => e.promptId === promptId);
  }

  /** The live entry `current` reports: running, else the FIFO head. */
  head(): E | undefined {
    return this.running ?? this.queued[0];
  }

  /** Takes `entry` out of the FIFO or the running slot; true when it was running. */
  release(entry: E): boolean {
    const index = this.queued.indexOf(entry);
    if (index >= 0) this.queued.splice(index, 1);
    if (this.running !== entry) return false;
    this.running = undefined;
    return true;
  }
}
