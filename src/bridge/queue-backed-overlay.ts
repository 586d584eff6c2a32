import { BridgeOverlayProvider } from '../turns/bridge-overlay.provider.js';
import type { TerminalOverlay } from '../turns/overlay/terminal-overlay.js';
import type { LiveTurnStatus, PendingInteraction } from '../turns/turn-status.js';
import type { QueuedPrompt } from './prompt-queue.js';
import type { SessionQueueCore } from './session-queue-core.js';
import type { TurnHooks } from './turn-hooks.js';
import type { TurnTransition } from './turn-transition.js';

/**
 * The poll port read from a {@link SessionQueueCore}: what both the reference bridge and the testing kit's
 * in-memory overlay answer, so they cannot differ. Subclasses say which sessions are live and drive the core;
 * the queue's one plug-in (approval) registers with {@link use}.
 */
export abstract class QueueBackedOverlay<E extends QueuedPrompt = QueuedPrompt> extends BridgeOverlayProvider {
  protected abstract readonly core: SessionQueueCore<E>;
  /** The registered plug-in; none: the queue runs without approval. */
  protected hooks?: TurnHooks;

  /**
   * Registers the queue's plug-in (docs/decisions.md#approval-is-a-plug-in-of-the-queue); one only. The same one again
   * is a no-op: Nest runs `onModuleInit` twice when a host inits the module ref and then the application.
   */
  use(hooks: TurnHooks): void {
    if (this.hooks === hooks) return;
    if (this.hooks) throw new Error('the queue has its turn hooks already');
    this.hooks = hooks;
    hooks.onChange((sessionId, promptId) => this.core.interactionsChanged(sessionId, promptId));
  }

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

  /** What the session's prompts wait on, from the hooks (none registered: nothing). */
  pendingInteractions(sessionId: string): readonly PendingInteraction[] {
    return this.hooks?.pendingInSession(sessionId) ?? [];
  }

  /** Tells the hooks a client detached from the session. */
  clientLeft(sessionId: string, clientId: string): void {
    this.hooks?.clientLeft(sessionId, clientId);
  }

  /** Whether a watch of the session may be woken at all (`undefined` answers a held request at once). */
  protected watchable(_sessionId: string): boolean {
    return true;
  }

  /** The core's first observer: the hooks see each transition before any other (they may register after the core is built). */
  protected readonly hookObserver = (transition: TurnTransition): void => this.hooks?.observe(transition);

  /** The core's reader of what a running prompt waits on, from the hooks. */
  protected readonly hookedInteractions = (sessionId: string, promptId: string): readonly PendingInteraction[] | undefined =>
    this.hooks?.pendingOf(sessionId, promptId);
}
