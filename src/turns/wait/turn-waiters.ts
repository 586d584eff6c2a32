import { ApiErrors } from '../../common/api-errors.js';
import { DeadlineQueue, type Expiring } from './deadline-queue.js';

/** One held request: woken by the bridge, expired by the deadline queue, released by its client. */
export interface Waiter extends Expiring {
  /** The bridge (or a shutdown) says something changed. */
  wake(): void;
}

/**
 * The held requests of a daemon: at most `maxWaiters` at once (more → `503
 * too_many_waiters`), their deadlines behind one timer, and a way to wake them
 * all (shutdown). Each waiter costs a set entry and a heap slot.
 */
export class TurnWaiters {
  private readonly waiters = new Set<Waiter>();
  private readonly deadlines: DeadlineQueue<Waiter>;
  private closed = false;

  constructor(
    private readonly maxWaiters: number,
    now: () => number = () => Date.now(),
  ) {
    this.deadlines = new DeadlineQueue<Waiter>(now);
  }

  /** Held requests right now. */
  get count(): number {
    return this.waiters.size;
  }

  /** Admits a waiter, or throws `503 too_many_waiters` (with `Retry-After: 1`) at the bound. */
  add(waiter: Waiter): void {
    if (this.closed) throw ApiErrors.shuttingDown();
    if (this.waiters.size >= this.maxWaiters) throw ApiErrors.tooManyWaiters(this.maxWaiters);
    this.waiters.add(waiter);
    this.deadlines.add(waiter);
  }

  /** Forgets a waiter: answered, expired or disconnected. Idempotent. */
  remove(waiter: Waiter): void {
    if (this.waiters.delete(waiter)) this.deadlines.remove(waiter);
  }

  /** Wakes every waiter and admits no more (shutdown): held requests answer at once. */
  closeAll(): void {
    this.closed = true;
    this.deadlines.stop();
    for (const waiter of [...this.waiters]) waiter.expire();
  }
}
