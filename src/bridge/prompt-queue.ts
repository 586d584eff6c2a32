import type { PromptBlock } from '../turns/rules/turn-fields.js';
import type { TurnSpan } from '../telemetry/tracing.js';
import type { LiveTurnStatus } from '../turns/turn-status.js';
import type { RecordedIdempotency } from '../transcript/transcript-record.js';
import { TerminalOverlay } from './terminal-overlay.js';
import type { TurnActivityCounter } from './turn-activity.js';

/** An admitted prompt while it is queued or running. */
export interface LiveEntry {
  readonly promptId: string;
  readonly prompt: readonly PromptBlock[];
  readonly promptText: string;
  readonly queuedAt: number;
  readonly originatorClientId?: string;
  readonly abort: AbortController;
  startedAt?: number;
  /** It was admitted behind another prompt, so its queue events are sent (SPEC §19). */
  waited?: boolean;
  /** Removal was requested; a running entry stays running until the Session settles. */
  removed: boolean;
  /** The terminal latch: set once, by whichever path publishes first. */
  published: boolean;
  deadline?: NodeJS.Timeout;
  /** The live status last projected, reused until the entry changes (so its bytes are serialized once). */
  status?: LiveTurnStatus;
  /** Trace context of the admission (with OpenTelemetry loaded): the execution span is its child. */
  traceContext?: unknown;
  /** The `turns.prompt.execute` span while the prompt runs. */
  span?: TurnSpan;
  /** The `Idempotency-Key` it was admitted with, and its answer, for the transcript. */
  idempotency?: RecordedIdempotency;
  /** Counts the agent's updates while it runs. */
  counter?: TurnActivityCounter;
  /** Shows the counts to activity watchers once the refresh interval allows (only while someone watches). */
  activityTimer?: NodeJS.Timeout;
}

/** One session's FIFO, its running prompt, its terminal overlay and its rewind state. */
export class PromptQueue {
  running?: LiveEntry;
  readonly queued: LiveEntry[] = [];
  readonly overlay: TerminalOverlay;
  /** Bumped by each successful rewind; a scan begun before a bump is stale. */
  generation = 0;
  /** A rewind is being written: admissions wait it out (409). */
  rewinding = false;

  constructor(overlaySize: number) {
    this.overlay = new TerminalOverlay(overlaySize);
  }

  get pendingCount(): number {
    return this.queued.length + (this.running ? 1 : 0);
  }

  /** Running first, then the FIFO. */
  pending(): LiveEntry[] {
    return this.running ? [this.running, ...this.queued] : [...this.queued];
  }

  find(promptId: string): LiveEntry | undefined {
    return this.running?.promptId === promptId ? this.running : this.queued.find((e) => e.promptId === promptId);
  }

  /** The live entry `current` reports: running, else the FIFO head. */
  head(): LiveEntry | undefined {
    return this.running ?? this.queued[0];
  }

  /** Takes `entry` out of the FIFO or the running slot; true when it was running. */
  release(entry: LiveEntry): boolean {
    const index = this.queued.indexOf(entry);
    if (index >= 0) this.queued.splice(index, 1);
    if (this.running !== entry) return false;
    this.running = undefined;
    return true;
  }
}
