import { SessionClientLookup } from '../client-id/session-client-lookup.js';
import type { TerminalOverlay } from './overlay/terminal-overlay.js';
import type { LiveTurnStatus } from './turn-status.js';

/**
 * The live side of a runtime, as the poll algorithm reads it: what only the
 * runtime knows — its sessions and their client ids, each session's FIFO of
 * queued and running prompts, when any of that changes — and the
 * {@link TerminalOverlay} it feeds with each terminal status. The overlay's
 * rules (first terminal wins, write-back, the newest entry, rewinds) are the
 * module's, in that class. Abstract class used as the injection token; the
 * reference implementation is the runtime's `PromptBridge`, an in-memory one
 * is `InMemoryBridgeOverlay` (`nest-turn-status/testing`), and
 * `docs/examples/host-runtime/` is a host's, over a runtime of its own.
 *
 * The contract, for every method: synchronous and cheap (it runs on every
 * poll); no I/O, no awaiting, no change of state; never throws for an
 * unknown session or prompt (answer `undefined`/`false`). Statuses are the
 * wire shapes of `TurnStatus`, within the wire limits (`limitTurnFields`).
 *
 * @publicApi
 */
export abstract class BridgeOverlayProvider extends SessionClientLookup {
  /**
   * The runtime's terminal overlay, fed by the runtime: each terminal status
   * (`publish`, as the prompt leaves the live view), each successful rewind
   * (`rewound`), each closed session (`forget`). The module reads it on
   * every poll and writes back what it read from the transcript.
   */
  abstract readonly overlay: TerminalOverlay;

  /**
   * The live (queued or running) status: of `promptId` exactly, or, when it
   * is omitted, the running prompt else the queued FIFO head. Must return
   * `undefined` for a removed queued prompt and for a prompt whose terminal is
   * published (the overlay answers those), and for an unknown session.
   */
  abstract getLive(sessionId: string, promptId?: string): LiveTurnStatus | undefined;

  /**
   * Calls `listener` after every change to what a poll of the session could
   * answer — admission, dispatch, a terminal, removal, a successful rewind,
   * close — until the returned function is called. The default says "no
   * notifications" (`undefined`): held requests (`waitMs`) are then answered
   * at once, like plain polls. Override it to let clients wait. The listener
   * must be called after the change is visible to `getLive` and the overlay
   * (a wake-up polls afresh), and never for a session other than its own;
   * unsubscribing twice is harmless.
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
}
