/** Something waiting for a deadline; `expire` is called once, unless it was removed first. */
export interface Expiring {
  readonly deadline: number;
  expire(): void;
}

/** A heap slot: the deadline, and the item until it is removed. */
interface Slot<T> {
  readonly deadline: number;
  item?: T;
}

/**
 * Deadlines of any number of waiters behind one timer: a binary min-heap by
 * deadline, with the timer set for the earliest. A waiter costs a heap slot,
 * no timer of its own, and nothing at all while it waits. A removed waiter
 * leaves only an empty slot behind (never its request), and the heap is
 * rebuilt once most of it is empty.
 */
export class DeadlineQueue<T extends Expiring> {
  private heap: Slot<T>[] = [];
  private readonly slots = new WeakMap<T, Slot<T>>();
  private live = 0;
  private timer?: NodeJS.Timeout;
  private timerAt = Infinity;

  constructor(private readonly now: () => number = () => Date.now()) {}

  add(item: T): void {
    const slot: Slot<T> = { deadline: item.deadline, item };
    this.slots.set(item, slot);
    this.heap.push(slot);
    this.live += 1;
    this.up(this.heap.length - 1);
    this.schedule();
  }

  /** Forgets an item: its slot is emptied at once and dropped when the heap is next rebuilt or reaches it. */
  remove(item: T): void {
    const slot = this.slots.get(item);
    if (!slot?.item) return;
    slot.item = undefined;
    this.slots.delete(item);
    this.live -= 1;
    if (this.heap.length > 64 && this.live < this.heap.length / 2) this.compact();
  }

  /** Expires every item whose deadline has passed, then waits for the next. */
  run(): void {
    const now = this.now();
    while (this.heap.length > 0 && this.heap[0]!.deadline <= now) {
      const { item } = this.pop();
      if (!item) continue;
      this.slots.delete(item);
      this.live -= 1;
      item.expire();
    }
    this.schedule(true);
  }

  /** Stops the timer (shutdown); items are left to their owners. */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  /** Items still waiting. */
  get size(): number {
    return this.live;
  }

  /** Slots in the heap, empty ones included. */
  get slotCount(): number {
    return this.heap.length;
  }

  private compact(): void {
    this.heap = this.heap.filter((slot) => slot.item !== undefined);
    for (let i = (this.heap.length >> 1) - 1; i >= 0; i -= 1) this.down(i);
    this.schedule(true);
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

  private pop(): Slot<T> {
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
