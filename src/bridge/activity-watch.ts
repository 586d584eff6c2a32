import type { QueuedPrompt } from './prompt-queue.js';
import { SessionWatchers } from './session-watchers.js';
import type { CountedReport } from './turn-activity.js';

/**
 * Shows running turns' agent updates to the held requests that asked for
 * `activity`: polls see the counts at most once per refresh interval; plain
 * watchers are never woken by them, only these — through one timer per
 * prompt when the interval is not up, armed only while someone watches.
 */
export class ActivityWatch {
  private readonly watchers: SessionWatchers;

  constructor(
    private readonly now: () => number,
    logger: { error(message: string): void },
  ) {
    this.watchers = new SessionWatchers(logger);
  }

  /** Watches the session; updates that came while no one watched are shown to the new watcher when due. */
  watch(sessionId: string, listener: () => void, pending: readonly QueuedPrompt[]): () => void {
    const stop = this.watchers.add(sessionId, listener);
    for (const entry of pending) if (entry.counter && !entry.published) this.arm(sessionId, entry);
    return stop;
  }

  /** Counts one agent update of a running prompt; or keeps its usage so far (for its terminal) and shows it as its counts are. */
  counted(sessionId: string, entry: QueuedPrompt, update: CountedReport): void {
    if (!entry.counter || entry.published) return;
    if ('usage' in update) {
      entry.usage = update.usage;
      entry.counter.reportUsage(update.usage);
    } else entry.counter.count(update, this.now());
    this.show(sessionId, entry);
  }

  /**
   * A poll reads the entry: shows the counts when due (its projected status
   * is then stale); the watchers re-read later, never inside this read.
   */
  refreshOnRead(sessionId: string, entry: QueuedPrompt): void {
    if (!entry.counter?.refresh(this.now())) return;
    entry.status = undefined;
    queueMicrotask(() => this.watchers.notify(sessionId));
  }

  forget(sessionId: string): void {
    this.watchers.forget(sessionId);
  }

  private show(sessionId: string, entry: QueuedPrompt): void {
    if (entry.counter!.refresh(this.now())) {
      entry.status = undefined;
      this.watchers.notify(sessionId);
      return;
    }
    this.arm(sessionId, entry);
  }

  private arm(sessionId: string, entry: QueuedPrompt): void {
    const delay = entry.counter!.pendingIn(this.now());
    if (delay === undefined || entry.activityTimer || !this.watchers.has(sessionId)) return;
    entry.activityTimer = setTimeout(() => {
      entry.activityTimer = undefined;
      if (!entry.published) this.show(sessionId, entry);
    }, delay);
    entry.activityTimer.unref?.();
  }
}
