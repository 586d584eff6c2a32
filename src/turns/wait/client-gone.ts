import type { EventEmitter } from 'node:events';
import type { WaitSignal } from './held-turn-request.js';

type NodeResponse = EventEmitter & { writableFinished?: boolean };

/** The Node response under an Express response or a Fastify reply. */
function nodeResponse(response: unknown): NodeResponse {
  return ((response as { raw?: unknown }).raw ?? response) as NodeResponse;
}

/**
 * A {@link WaitSignal} that fires when the client goes away before its answer
 * was sent (the connection closed); works on Express and Fastify alike, since
 * both sit on Node's `ServerResponse`. One object and one `close` listener a
 * request — not an `AbortController`, whose signal weighs several times more
 * and would be held as long as the request is. Call `done` once answered.
 */
export class ClientGone implements WaitSignal {
  private gone = false;
  private listener?: { handleEvent(): void };
  private readonly target: NodeResponse;
  private readonly onClose = (): void => {
    if (this.target.writableFinished || this.gone) return;
    this.gone = true;
    this.listener?.handleEvent();
  };

  constructor(response: unknown) {
    this.target = nodeResponse(response);
    this.target.on('close', this.onClose);
  }

  /** True once the client went away before its answer was sent. */
  get aborted(): boolean {
    return this.gone;
  }

  addEventListener(_type: 'abort', listener: { handleEvent(): void }): void {
    this.listener = listener;
  }

  removeEventListener(_type: 'abort', listener: { handleEvent(): void }): void {
    if (this.listener === listener) this.listener = undefined;
  }

  /** The answer is out (or failed): stop listening. */
  done(): void {
    this.target.removeListener('close', this.onClose);
  }
}
