import { apiError } from '../errors/api-errors.js';
import type { Clock } from '../common/clock.js';

/** The first answer to a key: its success status and body. */
export interface IdempotentAnswer {
  status: number;
  body: unknown;
}

interface KeyEntry {
  fingerprint: string;
  /** Absent while the first request is still being processed. */
  answer?: IdempotentAnswer;
  /** When the key was first used (epoch ms); it expires `ttlMs` later. */
  at: number;
}

/** Settings of the store. */
export interface IdempotencyLimits {
  /** Keys remembered per daemon; beyond, the oldest goes first. */
  maxKeys: number;
  /** How long a key is remembered from its first use, in ms. */
  ttlMs: number;
}

/**
 * The keys seen by this daemon (docs/idempotency.md), bounded: insertion order is age
 * order, so the oldest key is the Map's first. Only successful answers are
 * kept — a request that failed leaves its key free for the retry.
 */
export class IdempotencyStore {
  private readonly entries = new Map<string, KeyEntry>();

  constructor(
    private readonly limits: IdempotencyLimits,
    private readonly clock: Clock,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** How long a key is remembered from its first use, in ms. */
  get ttlMs(): number {
    return this.limits.ttlMs;
  }

  /**
   * Starts a request under `key`: the first answer when it is a repeat (same
   * fingerprint), `undefined` when the caller is to process it (and then
   * {@link complete} or {@link abandon} it). `422 idempotency_key_reused` for
   * another body, `409 idempotency_key_in_flight` while the first is running.
   */
  begin(key: string, fingerprint: string): IdempotentAnswer | undefined {
    const entry = this.live(key);
    if (entry) {
      if (entry.fingerprint !== fingerprint) throw apiError('idempotency_key_reused');
      if (!entry.answer) throw apiError('idempotency_key_in_flight');
      return entry.answer;
    }
    this.insert(key, { fingerprint, at: this.clock.now() });
    return undefined;
  }

  /** Records the first answer of a key begun here. */
  complete(key: string, answer: IdempotentAnswer): void {
    const entry = this.entries.get(key);
    if (entry && !entry.answer) entry.answer = answer;
  }

  /** Frees a key whose first request failed (or never finished). */
  abandon(key: string): void {
    if (this.entries.get(key)?.answer === undefined) this.entries.delete(key);
  }

  /**
   * Remembers an answer given before (e.g. found in a transcript at load);
   * false for one expired, or for a key already known (which is kept).
   */
  seed(key: string, fingerprint: string, answer: IdempotentAnswer, at: number): boolean {
    if (this.clock.now() - at >= this.limits.ttlMs || this.live(key)) return false;
    this.insert(key, { fingerprint, answer, at });
    return true;
  }

  private live(key: string): KeyEntry | undefined {
    const entry = this.entries.get(key);
    if (entry && this.clock.now() - entry.at >= this.limits.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private insert(key: string, entry: KeyEntry): void {
    while (this.entries.size >= this.limits.maxKeys) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    this.entries.set(key, entry);
  }
}
