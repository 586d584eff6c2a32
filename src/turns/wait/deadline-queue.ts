/** Something waiting for a deadline; `expire` is called once, unless it was removed first. */
export interface Expiring {
  readonly deadline: number;
  expire(): void;
}

/**
 * Deadlines of any number of waiters behind one timer: a binary min-heap by
 * deadline, with the timer set for the earliest. A waiter costs a heap slot,
 * no timer of its own, and nothing at all while it waits.
 */
export class DeadlineQueue<T extends Expiring> {
  private readonly heap: T[] = [];
  private readonly removed = new WeakSet<T>();
  private timer?: NodeJS.Timeout;
  private timerAt = Infinity;

  constructor(private readonly now: () => number = () => Date.now()) {}

  add(item: T): void {
    this.heap.push(item);
    this.up(this.heap.length - 1);
    this.schedule();
  }

  /** Forgets an item (lazily: it leaves the heap when its deadline comes up). */
  remove(item: T): void {
    this.removed.add(item);
  }

  /** Expires every item whose deadline has passed, then waits for the next. */
  run(): void {
    const now = this.now();
    while (this.heap.length > 0 && this.heap[0]!.deadline <= now) {
      const item = this.pop();
      if (!this.removed.has(item)) item.expire();
    }
    this.schedule(true);
  }

  /** Stops the timer (shutdown); items are left to their owners. */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  get size(): number {
    return this.heap.length;
  }

  private schedule(force = false): void {
    const next = this.heap[0]?.deadline ?? Infinity;
    if (!force && next >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = next;
    if (next === Infinity) return;
    this.timer = setTimeout(() => this.run(), Math.max(0, next - this.now()));
    this.timer.unref?.();
  }

  private pop(): T {
    const top = this.heap[0]!;
    const last = this.heap.pop()!;
    if (this.heap.length > 0) {
      this.heap[0] = last;
      this.down(0);
    }
    return top;
  }

  private up(index: number): void {
    const { heap } = this;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (heap[parent]!.deadline <= heap[index]!.deadline) return;
      [heap[parent], heap[index]] = [heap[index]!, heap[parent]!];
      index = parent;
    }
  }

  private down(index: number): void {
    const { heap } = this;
    for (;;) {
      const left = index * 2 + 1;
      const right = left + 1;
      let smallest = index;
      if (left < heap.length && heap[left]!.deadline < heap[smallest]!.deadline) smallest = left;
      if (right < heap.length && heap[right]!.deadline < heap[smallest]!.deadline) smallest = right;
      if (smallest === index) return;
      [heap[smallest], heap[index]] = [heap[index]!, heap[smallest]!];
      index = smallest;
    }
  }
}
