import { TERMINAL_OVERLAY_SIZE } from '../rules/limits.js';
import type { SettledTurnStatus } from '../turn-status.js';
import { SessionTerminals } from './session-terminals.js';

/** Sessions whose last close is remembered, for {@link TerminalOverlay.leftSince} (a bound, not an index). */
const REMEMBERED_CLOSES = 1_024;

/**
 * A terminal status held in memory, and whether it already met its transcript record.
 *
 * @publicApi
 */
export interface OverlayEntry {
  readonly status: SettledTurnStatus;
  /**
   * True when the status is final — already combined with its transcript
   * record by a poll's write-back — and served as is, without a scan; false
   * for a terminal the runtime published.
   */
  readonly combined: boolean;
}

/** @publicApi */
export interface TerminalOverlayOptions {
  /** Terminal statuses kept per session. @default TERMINAL_OVERLAY_SIZE (64) */
  capacity?: number;
}

/**
 * The recent terminal statuses of every session of a runtime, which a poll answers from memory. The runtime feeds it;
 * its rules are kept here, once, for every runtime (docs/decisions.md#the-terminal-overlay).
 *
 * @publicApi
 */
export class TerminalOverlay {
  /** Statuses kept per session. */
  readonly capacity: number;
  private readonly sessions = new Map<string, SessionTerminals>();
  /** Closes counted so far, and the count at each recent session's last one (oldest first out). */
  private closes = 0;
  private readonly closedAt = new Map<string, number>();

  constructor(options: TerminalOverlayOptions = {}) {
    this.capacity = options.capacity ?? TERMINAL_OVERLAY_SIZE;
  }

  // --- what the runtime feeds ------------------------------------------------

  /**
   * Publishes a prompt's terminal status: the first one wins (a later one answers `false`) and becomes the session's
   * newest entry. Publish as the prompt leaves the live view, then wake watchers (docs/decisions.md#the-terminal-overlay).
   */
  publish(status: SettledTurnStatus): boolean {
    const terminals = this.session(status.sessionId);
    if (terminals.isPublished(status.promptId)) return false;
    terminals.set(status.promptId, { status, combined: false });
    return true;
  }

  /** A successful rewind of the session (after a failed one, call nothing): every entry goes, and scans begun before it are stale. */
  rewound(sessionId: string): void {
    this.session(sessionId).rewound();
  }

  /** The session is closed or unloaded: what is held for it goes (publish its last terminals first). */
  forget(sessionId: string): void {
    this.sessions.delete(sessionId);
    this.closes += 1;
    this.closedAt.delete(sessionId);
    this.closedAt.set(sessionId, this.closes);
    if (this.closedAt.size > REMEMBERED_CLOSES) this.closedAt.delete(this.closedAt.keys().next().value as string);
  }

  // --- what a poll reads and writes back (TurnStatusService) -------------------

  /** The entry of one prompt; `undefined` once evicted, or never settled. */
  get(sessionId: string, promptId: string): OverlayEntry | undefined {
    return this.sessions.get(sessionId)?.get(promptId);
  }

  /** The entry that last became newest (a published terminal, or a write-back of a `current` answer). */
  newest(sessionId: string): OverlayEntry | undefined {
    return this.sessions.get(sessionId)?.newest();
  }

  /** Every entry held for the session, in no particular order. */
  entries(sessionId: string): OverlayEntry[] {
    return this.sessions.get(sessionId)?.entries() ?? [];
  }

  /** A mark of the closes so far: a scan takes one as it begins, for {@link leftSince}. */
  closeMark(): number {
    return this.closes;
  }

  /**
   * Whether the session was closed or unloaded ({@link forget}) after `mark`,
   * even if it is live again: a scan begun before read files its runtime has
   * let go since. True, too, when so many sessions closed since that its own
   * close may no longer be remembered.
   */
  leftSince(sessionId: string, mark: number): boolean {
    const at = this.closedAt.get(sessionId);
    return at === undefined ? this.closes - mark > REMEMBERED_CLOSES : at > mark;
  }

  /** Bumped by each successful rewind (`0` before any); a scan begun before a bump is stale. */
  generation(sessionId: string): number {
    return this.sessions.get(sessionId)?.generation ?? 0;
  }

  /**
   * Stores a status the poll combined with (or read from) the transcript,
   * marked `combined`: later polls of it are answered from memory. A held
   * entry keeps its place; a new one becomes the newest only when `newest`
   * is true (a `current` answer), so an exact lookup of an old prompt never
   * makes `current` report it. It changes nothing a client sees: no event,
   * no wake-up. The module calls it; a runtime has no reason to.
   */
  writeBack(sessionId: string, status: SettledTurnStatus, newest: boolean): void {
    this.session(sessionId).setReadBack(status.promptId, { status, combined: true }, newest);
  }

  private session(sessionId: string): SessionTerminals {
    let terminals = this.sessions.get(sessionId);
    if (!terminals) {
      terminals = new SessionTerminals(this.capacity);
      this.sessions.set(sessionId, terminals);
    }
    return terminals;
  }
}
