import type { OverlayEntry } from '../turns/bridge-overlay.provider.js';

/**
 * The most recent terminal statuses of one session, by promptId, in insertion
 * order. Past `capacity` the oldest is evicted; setting an existing key
 * replaces its value but keeps its place.
 */
export class TerminalOverlay {
  private readonly entries = new Map<string, OverlayEntry>();
  private newestKey: string | undefined;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(promptId: string): OverlayEntry | undefined {
    return this.entries.get(promptId);
  }

  /** The entry inserted last as newest (absent once evicted). */
  newest(): OverlayEntry | undefined {
    return this.newestKey === undefined ? undefined : this.entries.get(this.newestKey);
  }

  /**
   * Stores an entry; an existing key keeps its place in eviction order. The
   * entry becomes the newest unless `newest` is false: an old result read back
   * from the transcript joins the overlay without posing as the latest turn.
   */
  set(promptId: string, entry: OverlayEntry, newest = true): void {
    const isNew = !this.entries.has(promptId);
    this.entries.set(promptId, entry);
    if (newest) this.newestKey = promptId;
    if (isNew && this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
      if (oldest === this.newestKey) this.newestKey = undefined;
    }
  }

  clear(): void {
    this.entries.clear();
    this.newestKey = undefined;
  }

  keys(): string[] {
    return [...this.entries.keys()];
  }
}
