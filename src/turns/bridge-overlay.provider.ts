import { SessionClientLookup } from '../clients/session-client-lookup.js';
import type { LiveTurnStatus, SettledTurnStatus } from './turn-status.js';

/**
 * A terminal status held in memory, and whether it already met its transcript record.
 *
 * @publicApi
 */
export interface OverlayEntry {
  readonly status: SettledTurnStatus;
  /** Set by {@link BridgeOverlayProvider.writeBack}: serve as is, no transcript read. */
  readonly combined: boolean;
}

/**
 * The live side of a runtime, as the poll algorithm reads it: the per-session
 * FIFO of admitted prompts and an overlay of recent terminal statuses.
 * Abstract class used as the injection token; the reference implementation is
 * the runtime's `PromptBridge`. Reads are synchronous and cheap; only
 * `writeBack` changes anything, and only in memory.
 *
 * @publicApi
 */
export abstract class BridgeOverlayProvider extends SessionClientLookup {
  /**
   * The live (queued or running) status: of `promptId` exactly, or, when it
   * is omitted, the running prompt else the queued FIFO head. A removed queued
   * prompt and a prompt whose terminal is published are never live.
   */
  abstract getLive(sessionId: string, promptId?: string): LiveTurnStatus | undefined;
  /** The overlay entry of one prompt. */
  abstract getOverlay(sessionId: string, promptId: string): OverlayEntry | undefined;
  /** The overlay entry inserted last (the newest settled prompt it knows). */
  abstract getNewestOverlay(sessionId: string): OverlayEntry | undefined;
  /**
   * Stores a status combined with (or read from) the transcript, marked
   * `combined`. An existing entry keeps its place. A new one becomes the
   * newest only when `newest` is true (a `current` answer); an exact lookup of
   * an older prompt must not make `current` report it.
   */
  abstract writeBack(sessionId: string, status: SettledTurnStatus, newest: boolean): void;
  /** Bumped by each successful rewind; a scan begun before a bump is stale. */
  abstract rewindGeneration(sessionId: string): number;

  /**
   * Calls `listener` after every change to what a poll of the session could
   * answer — admission, dispatch, a terminal, removal, a successful rewind,
   * close — until the returned function is called. The default says "no
   * notifications" (`undefined`): held requests (`waitMs`) are then answered
   * at once, like plain polls. Override it to let clients wait.
   */
  watch(_sessionId: string, _listener: () => void): (() => void) | undefined {
    return undefined;
  }
}
