import { SessionClientLookup } from '../client-id/session-client-lookup.js';
import type { TerminalOverlay } from './overlay/terminal-overlay.js';
import type { LiveTurnStatus } from './turn-status.js';

/**
 * The live side of a runtime, as a poll reads it, and the {@link TerminalOverlay} it feeds; the injection token. Every
 * method is synchronous and cheap, does no I/O and never throws (docs/mounting.md#what-each-port-promises).
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
   * Calls `listener` after every change to what a poll of the session could answer, until the returned function is
   * called; the default (`undefined`) answers held requests at once (docs/mounting.md#what-each-port-promises).
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
