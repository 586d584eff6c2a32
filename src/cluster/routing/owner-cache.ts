/** Owners looked up recently, each reused for a short time (docs/cluster.md#inv-route-3). Bounded: the oldest entry goes first. */
export class OwnerCache<T> {
  private readonly entries = new Map<string, { value: T; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > this.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /** Keeps `value` for the cache's time, or for `maxMs` when that is shorter (the lease's own time left). */
  set(key: string, value: T, maxMs = Infinity): void {
    const ttlMs = Math.min(this.ttlMs, maxMs);
    this.entries.delete(key);
    if (ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
