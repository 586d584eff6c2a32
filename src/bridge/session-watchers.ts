/**
 * Listeners by session, called with nothing (they re-read what they watch):
 * one listener that throws is logged and harms no other, nor the caller.
 */
export class SessionWatchers {
  private readonly sets = new Map<string, Set<() => void>>();

  constructor(private readonly logger: { error(message: string): void }) {}

  /** Adds a listener; the returned function removes it (twice is harmless). */
  add(sessionId: string, listener: () => void): () => void {
    let listeners = this.sets.get(sessionId);
    if (!listeners) {
      listeners = new Set();
      this.sets.set(sessionId, listeners);
    }
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.sets.get(sessionId) === listeners) this.sets.delete(sessionId);
    };
  }

  has(sessionId: string): boolean {
    return this.sets.has(sessionId);
  }

  count(sessionId: string): number {
    return this.sets.get(sessionId)?.size ?? 0;
  }

  notify(sessionId: string): void {
    const listeners = this.sets.get(sessionId);
    if (!listeners) return;
    for (const listener of [...listeners]) {
      try {
        listener();
      } catch (error) {
        this.logger.error(`turn watcher failed: ${(error as Error)?.name ?? 'error'}`);
      }
    }
  }

  /** Drops the session's listeners (it closed). */
  forget(sessionId: string): void {
    this.sets.delete(sessionId);
  }
}
