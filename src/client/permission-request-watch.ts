import type { PendingInteraction, TurnStatus } from '../turns/turn-status.js';
import type { PermissionRequestListener } from './client-options.js';

/**
 * Follows the pending requests of one waited-for turn across the statuses
 * the wait reads: reports each new one once, and ends its signal when it is
 * no longer pending (answered by anyone, ended with the turn) or the wait
 * ends. A listener that throws or rejects fails the wait (`fail`).
 *
 * @internal
 */
export class PermissionRequestWatch {
  /** The signal of each request reported and still pending. */
  private readonly open = new Map<string, AbortController>();
  private readonly reported = new Set<string>();

  constructor(
    private readonly sessionId: string,
    private readonly promptId: string,
    private readonly listener: PermissionRequestListener,
    private readonly fail: (error: unknown) => void,
  ) {}

  observe(status: TurnStatus): void {
    const pending = status.state === 'running' ? (status.pendingInteractions ?? []) : [];
    const ids = new Set(pending.map((request) => request.requestId));
    for (const [requestId, controller] of this.open) {
      if (ids.has(requestId)) continue;
      this.open.delete(requestId);
      controller.abort();
    }
    for (const request of pending) if (request.kind === 'permission' && !this.reported.has(request.requestId)) this.report(request);
  }

  /** Ends every signal still open: the wait is over. */
  close(): void {
    for (const controller of this.open.values()) controller.abort();
    this.open.clear();
  }

  private report(request: PendingInteraction): void {
    const controller = new AbortController();
    this.reported.add(request.requestId);
    this.open.set(request.requestId, controller);
    const context = { sessionId: this.sessionId, promptId: this.promptId, signal: controller.signal };
    try {
      Promise.resolve(this.listener(request, context)).catch((error: unknown) => this.failUnlessStopped(error, controller.signal));
    } catch (error) {
      this.failUnlessStopped(error, controller.signal);
    }
  }

  /** A listener that stops by throwing its own signal's abort was told to stop: not a failure. */
  private failUnlessStopped(error: unknown, signal: AbortSignal): void {
    if (signal.aborted && (error === signal.reason || (error as Error | undefined)?.name === 'AbortError')) return;
    this.fail(error);
  }
}
