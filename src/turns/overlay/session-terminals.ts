import type { OverlayEntry } from './terminal-overlay.js';

/**
 * One session's part of the {@link TerminalOverlay}: at most `capacity` terminal statuses by promptId, published ones
 * outliving read-backs (docs/decisions.md#the-terminal-overlay), and its rewind generation.
 */
export class SessionTerminals {
  private readonly published = new Map<string, OverlayEntry>();
  private readonly readBack = new Map<string, OverlayEntry>();
  private newestKey: string | undefined;
  /** Bumped by each successful rewind; a scan begun before a bump is stale. */
  generation = 0;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.published.size + this.readBack.size;
  }

  get(promptId: string): OverlayEntry | undefined {
    return this.published.get(promptId) ?? this.readBack.get(promptId);
  }

  /** True when the runtime published this prompt's terminal (a write-back over it keeps that). */
  isPublished(promptId: string): boolean {
    return this.published.has(promptId);
  }

  /** The entry inserted last as newest (absent once evicted). */
  newest(): OverlayEntry | undefined {
    return this.newestKey === undefined ? undefined : this.get(this.newestKey);
  }

  /**
   * Stores a status the runtime published. It becomes the newest; a key known
   * only as a read-back moves to the published tier.
   */
  set(promptId: string, entry: OverlayEntry): void {
    this.readBack.delete(promptId);
    this.published.set(promptId, entry);
    this.newestKey = promptId;
    this.evictPastCapacity();
  }

  /**
   * Stores a result combined with (or read from) the transcript. A key held
   * is replaced in its tier and place; a new one joins the read-back tier,
   * the first to be evicted. It becomes the newest only when `newest` is
   * true: an old result must not pose as the latest turn.
   */
  setReadBack(promptId: string, entry: OverlayEntry, newest: boolean): void {
    const tier = this.published.has(promptId) ? this.published : this.readBack;
    tier.set(promptId, entry);
    if (newest) this.newestKey = promptId;
    this.evictPastCapacity();
  }

  /** Every entry held, in no particular order. */
  entries(): OverlayEntry[] {
    return [...this.readBack.values(), ...this.published.values()];
  }

  /** A successful rewind: nothing held speaks for the session any more, and scans begun before are stale. */
  rewound(): void {
    this.published.clear();
    this.readBack.clear();
    this.newestKey = undefined;
    this.generation += 1;
  }

  /** Keys in eviction order: read-backs oldest first, then published ones oldest first. */
  keys(): string[] {
    return [...this.readBack.keys(), ...this.published.keys()];
  }

  private evictPastCapacity(): void {
    while (this.size > this.capacity) {
      const tier = this.readBack.size > 0 ? this.readBack : this.published;
      const oldest = tier.keys().next().value as string;
      tier.delete(oldest);
      if (oldest === this.newestKey) this.newestKey = undefined;
    }
  }
}
