import { BridgeOverlayProvider } from '../turns/bridge-overlay.provider.js';
import type { TerminalOverlay } from '../turns/overlay/terminal-overlay.js';
import type { LiveTurnStatus } from '../turns/turn-status.js';
import type { QueuedPrompt } from './prompt-queue.js';
import type { SessionQueueCore } from './session-queue-core.js';

/**
 * The poll port read from a {@link SessionQueueCore}: what both the
 * reference bridge and the testing kit's in-memory overlay answer, so they
 * cannot differ. Subclasses say which sessions are live and drive the core.
 */
export abstract class QueueBackedOverlay<E extends QueuedPrompt = QueuedPrompt> extends BridgeOverlayProvider {
  protected abstract readonly core: SessionQueueCore<E>;

  get overlay(): TerminalOverlay {
    return this.core.overlay;
  }

  getLive(sessionId: string, promptId?: string): LiveTurnStatus | undefined {
    return this.core.getLive(sessionId, promptId);
  }

  override listLive(sessionId: string): LiveTurnStatus[] {
    return this.core.listLive(sessionId);
  }

  override watch(sessionId: string, listener: () => void): (() => void) | undefined {
    return this.watchable(sessionId) ? this.core.watch(sessionId, listener) : undefined;
  }

  override watchActivity(sessionId: string, listener: () => void): (() => void) | undefined {
    return this.watchable(sessionId) ? this.core.watchActivity(sessionId, listener) : undefined;
  }

  /** Whether a watch of the session may be woken at all (`undefined` answers a held request at once). */
  protected watchable(_sessionId: string): boolean {
    return true;
  }
}
