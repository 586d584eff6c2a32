import { TURN_LIMITS } from '../turns/rules/limits.js';
import { truncateCodeUnits } from '../turns/rules/truncate-code-units.js';
import type { TurnActivity, TurnUsage } from '../turns/turn-status.js';

/** The least time between two changes of a running turn's `activity` (and so of its ETag). */
export const ACTIVITY_REFRESH_MS = 1_000;

/** What the counter needs of an agent update: whether it starts a tool call, and that call's title. */
export interface CountedUpdate {
  kind: string;
  title?: string;
}

/** An agent update to count, or the turn's usage so far (the sum the Session keeps). */
export type CountedReport = CountedUpdate | { usage: TurnUsage };

/**
 * Counts a running turn's agent updates and decides when the `activity` a
 * poll sees catches up with them: at most once per `intervalMs` (from the
 * turn's start), so a streaming agent changes its status's bytes — and its
 * ETag — at most that often, not per token. The turn's `usage` so far is
 * shown on the same beat.
 */
export class TurnActivityCounter {
  private events = 0;
  private toolCalls = 0;
  private lastEventAt = 0;
  private lastTool?: string;
  private shownEvents = 0;
  private refreshedAt: number;
  private usage?: TurnUsage;
  private usageShown = true;
  /** The activity polls see; `undefined` until the first refresh after an update. */
  shown?: TurnActivity;
  /** The usage polls see; `undefined` until the first refresh after a report. */
  shownUsage?: TurnUsage;

  constructor(
    startedAt: number,
    private readonly intervalMs = ACTIVITY_REFRESH_MS,
  ) {
    this.refreshedAt = startedAt;
  }

  count(update: CountedUpdate, now: number): void {
    this.events += 1;
    this.lastEventAt = now;
    if (update.kind === 'tool_call') {
      this.toolCalls += 1;
      if (typeof update.title === 'string') this.lastTool = truncateCodeUnits(update.title, TURN_LIMITS.identifier).text;
    }
  }

  /** What polls see: the activity and the usage last shown. */
  get shownFields(): { activity?: TurnActivity; usage?: TurnUsage } {
    return { activity: this.shown, usage: this.shownUsage };
  }

  /** The turn's usage so far (the sum the Session keeps). */
  reportUsage(usage: TurnUsage): void {
    this.usage = usage;
    this.usageShown = false;
  }

  /** Milliseconds until {@link refresh} may show the updates not shown yet (0: now); `undefined` when every update is shown. */
  pendingIn(now: number): number | undefined {
    if (this.events === this.shownEvents && this.usageShown) return undefined;
    return Math.max(0, this.refreshedAt + this.intervalMs - now);
  }

  /** Shows the counts so far when there are new ones and the interval has passed; true when `shown` changed. */
  refresh(now: number): boolean {
    if (this.pendingIn(now) !== 0) return false;
    const { events, toolCalls, lastEventAt, lastTool } = this;
    // Usage may come without an update (an engine's own report): no activity to show then.
    if (events > 0) this.shown = lastTool === undefined ? { events, toolCalls, lastEventAt } : { events, toolCalls, lastEventAt, lastTool };
    this.shownEvents = events;
    this.shownUsage = this.usage;
    this.usageShown = true;
    this.refreshedAt = now;
    return true;
  }
}
