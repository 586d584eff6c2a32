import type { RecordedIdempotency } from '../transcript/transcript-record.js';
import type { LiveTurnStatus, SettledTurnStatus } from '../turns/turn-status.js';

/**
 * A prompt's move, on the one stream every observer hangs on (docs/decisions.md#one-transition-stream): admitted,
 * started, settled (once), settled late (after a deadline's error), or withdrawn (its admission refused).
 *
 * @publicApi
 */
export interface TurnTransition {
  kind: 'admitted' | 'started' | 'settled' | 'settled_late' | 'withdrawn';
  sessionId: string;
  promptId: string;
  /** The status as the bridge knows it at that moment (for `settled_late`, the Session's outcome; for `withdrawn`, `queued`). */
  status: LiveTurnStatus | SettledTurnStatus;
  /** It was admitted behind another prompt, so its queue events are sent (docs/qwen-serve.md). */
  waited: boolean;
  /** The client id it was admitted with, as given (the status holds it within the wire limits). */
  originatorClientId?: string;
  /** On `admitted`: the `Idempotency-Key` it was admitted with, and its answer (the ledger records them). */
  idempotency?: RecordedIdempotency;
}

/** An observer of the stream; it runs synchronously, as the transition happens. */
export type TurnObserver = (transition: TurnTransition) => void;

/**
 * The stream's one listener registry: observers run in the order they
 * subscribed, and one that throws is logged and harms no other, nor the
 * transition. Delivery is FIFO, also for transitions emitted from inside an observer.
 */
export class TurnTransitionStream {
  private readonly observers = new Set<TurnObserver>();
  private readonly backlog: TurnTransition[] = [];
  private delivering = false;

  constructor(private readonly logger: { error(message: string): void }) {}

  /** Adds an observer; the returned function removes it (twice is harmless). */
  subscribe(observer: TurnObserver): () => void {
    // A wrapper, so one function subscribed twice is two observers, each removed by its own handle.
    const own: TurnObserver = (transition) => observer(transition);
    this.observers.add(own);
    return () => this.observers.delete(own);
  }

  /**
   * Delivers `transition` to every observer. One emitted by an observer waits
   * until the one in hand has reached them all, so every observer sees the
   * transitions in the same order (never a prompt's `settled` before its `started`).
   */
  emit(transition: TurnTransition): void {
    this.backlog.push(transition);
    if (this.delivering) return;
    this.delivering = true;
    try {
      for (let next = this.backlog.shift(); next; next = this.backlog.shift()) this.deliver(next);
    } finally {
      this.delivering = false;
    }
  }

  private deliver(transition: TurnTransition): void {
    for (const observer of this.observers) {
      try {
        observer(transition);
      } catch (error) {
        this.logger.error(`turn observer failed: ${(error as Error)?.name ?? 'error'}`);
      }
    }
  }
}
