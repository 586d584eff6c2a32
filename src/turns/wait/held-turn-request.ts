import type { TurnStatus } from '../turn-status.js';
import type { Waiter } from './turn-waiters.js';

/**
 * What a held wait listens to for its client going away: an `AbortSignal`, or
 * anything with its `aborted` and one `'abort'` listener object.
 */
export interface WaitSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: { handleEvent(): void }): void;
  removeEventListener(type: 'abort', listener: { handleEvent(): void }): void;
}

/** What a held request needs from its service (one for all requests): a fresh poll, the rule that ends the wait, and release. */
export interface HeldTurnRequestOwner<W> {
  poll(wait: W): Promise<TurnStatus>;
  satisfied(wait: W, status: TurnStatus): boolean;
  release(request: HeldTurnRequest<W>): void;
}

/**
 * One held turn request, as one object: it is the waiter the deadline queue
 * expires, the listener the bridge wakes and the listener of its client's
 * signal. (Ten thousand held requests are ten thousand of these: one object
 * with its methods on the prototype weighs less than a closure and a context
 * per role.) One fresh poll runs at a time; a wake-up during it polls once
 * more after.
 */
export class HeldTurnRequest<W> implements Waiter {
  /** The bridge's listener (a function, as `watch` takes). */
  readonly wake = (): void => this.repoll(false);
  private latest: TurnStatus;
  private settled = false;
  private polling = false;
  private again = false;
  private unwatch?: () => void;

  constructor(
    private readonly owner: HeldTurnRequestOwner<W>,
    private readonly wait: W,
    readonly deadline: number,
    first: TurnStatus,
    private readonly signal: WaitSignal | undefined,
    private readonly resolve: (status: TurnStatus) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.latest = first;
  }

  /**
   * Starts waiting once the bridge accepted the listener (`unwatch`); a change
   * between the first poll and the watch would be missed, so it looks once more.
   */
  start(unwatch: () => void): void {
    this.unwatch = unwatch;
    this.signal?.addEventListener('abort', this);
    this.repoll(false);
  }

  /** The deadline passed (or shutdown): answer with a fresh poll, whatever it says. */
  expire(): void {
    this.repoll(true);
  }

  /** The client went away: answer (nobody reads it) and release at once. */
  handleEvent(): void {
    this.finish(this.latest, undefined);
  }

  private repoll(final: boolean): void {
    if (this.settled) return;
    if (this.polling) {
      this.again = true;
      return;
    }
    this.polling = true;
    this.owner.poll(this.wait).then(
      (status) => {
        this.polling = false;
        this.latest = status;
        if (final || this.owner.satisfied(this.wait, status)) return this.finish(status, undefined);
        if (this.again) {
          this.again = false;
          this.repoll(false);
        }
      },
      (error: unknown) => this.finish(undefined, error),
    );
  }

  private finish(status: TurnStatus | undefined, error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.unwatch?.();
    this.owner.release(this);
    this.signal?.removeEventListener('abort', this);
    if (status) this.resolve(status);
    else this.reject(error);
  }
}
