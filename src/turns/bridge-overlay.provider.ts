import { SessionClientLookup } from '../client-id/session-client-lookup.js';
import type { LiveTurnStatus, SettledTurnStatus } from './turn-status.js';

/**
 * A terminal status held in memory, and whether it already met its transcript record.
 *
 * @publicApi
 */
export interface OverlayEntry {
  readonly status: SettledTurnStatus;
  /**
   * True when the status is final — already combined with its transcript
   * record by {@link BridgeOverlayProvider.writeBack} — and served as is,
   * without a scan; false for a terminal the bridge published itself.
   */
  readonly combined: boolean;
}

/**
 * The live side of a runtime, as the poll algorithm reads it: the per-session
 * FIFO of admitted prompts and an overlay of recent terminal statuses.
 * Abstract class used as the injection token; the reference implementation is
 * the runtime's `PromptBridge`, an in-memory one is `InMemoryBridgeOverlay`
 * (`nest-turn-status/testing`).
 *
 * The contract, for every method: synchronous and cheap (it runs on every
 * poll); no I/O, no awaiting; never throws for an unknown session or prompt
 * (answer `undefined`/`false`/`0`); only `writeBack` changes anything, and
 * only in memory. Statuses are the wire shapes of `TurnStatus`, within the
 * wire limits (`limitTurnFields`).
 *
 * @publicApi
 */
export abstract class BridgeOverlayProvider extends SessionClientLookup {
  /**
   * The live (queued or running) status: of `promptId` exactly, or, when it
   * is omitted, the running prompt else the queued FIFO head. Must return
   * `undefined` for a removed queued prompt and for a prompt whose terminal is
   * published (the overlay answers those), and for an unknown session.
   */
  abstract getLive(sessionId: string, promptId?: string): LiveTurnStatus | undefined;
  /**
   * The overlay entry of one prompt: its published terminal (`combined:
   * false`) or what `writeBack` stored (`combined: true`); `undefined` once
   * evicted or never settled.
   */
  abstract getOverlay(sessionId: string, promptId: string): OverlayEntry | undefined;
  /** The entry that last became newest (a published terminal, or a `writeBack` with `newest`); `undefined` when none is held. */
  abstract getNewestOverlay(sessionId: string): OverlayEntry | undefined;
  /**
   * Stores a status combined with (or read from) the transcript, marked
   * `combined`. An existing entry keeps its place. A new one becomes the
   * newest only when `newest` is true (a `current` answer); an exact lookup of
   * an older prompt must not make `current` report it. Must stay bounded
   * (evict, never grow without limit) and must not emit events or notify
   * watchers: it caches, it changes no state a client sees.
   */
  abstract writeBack(sessionId: string, status: SettledTurnStatus, newest: boolean): void;
  /** Bumped by each successful rewind (`0` before any, and for an unknown session); a scan begun before a bump is stale. */
  abstract rewindGeneration(sessionId: string): number;

  /**
   * Calls `listener` after every change to what a poll of the session could
   * answer — admission, dispatch, a terminal, removal, a successful rewind,
   * close — until the returned function is called. The default says "no
   * notifications" (`undefined`): held requests (`waitMs`) are then answered
   * at once, like plain polls. Override it to let clients wait. The listener
   * must be called after the change is visible to the getters (a wake-up
   * polls afresh), and never for a session other than its own; unsubscribing
   * twice is harmless.
   */
  watch(_sessionId: string, _listener: () => void): (() => void) | undefined {
    return undefined;
  }

  /**
   * Like {@link watch}, for a running turn's `activity` changing (at most
   * about once a second): only held requests that asked for it
   * (`Prefer: wait=S; activity`) listen. The default says "no notifications".
   */
  watchActivity(_sessionId: string, _listener: () => void): (() => void) | undefined {
    return undefined;
  }

  /**
   * Every live status of the session (running first, then the FIFO), for
   * `GET /session/:id/turns`. Bounded by the queue's limit. The default
   * knows only the one `getLive` answers; override it to list them all.
   */
  listLive(sessionId: string): LiveTurnStatus[] {
    const live = this.getLive(sessionId);
    return live ? [live] : [];
  }

  /**
   * Every entry the overlay holds (its bound, e.g. 64), in any order. The
   * default knows only the newest one; override it to list them all.
   */
  listOverlay(sessionId: string): OverlayEntry[] {
    const newest = this.getNewestOverlay(sessionId);
    return newest ? [newest] : [];
  }
}
