import type { EventEmitter } from 'node:events';

type NodeResponse = EventEmitter & { writableFinished?: boolean };

/**
 * What a held wait listens to for its client going away: an `AbortSignal`, or
 * a {@link ClientGone}.
 */
export interface WaitSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * A {@link WaitSignal} that fires when the client goes away before its answer
 * was sent (the connection closed), on Express and Fastify alike: both sit on
 * Node's `ServerResponse` (a Fastify reply keeps it as `raw`). One object and
 * one `close` listener a held request, not an `AbortController`.
 */
// bench:waiters (first line, in-process, same run): 0.26 KB and 2.9 µs to start + release vs 1.16 KB and 72 µs with an
// AbortController — ~9% of a held Fastify request's 9.6 KB of heap, and 25× the CPU (a whole poll costs ~80 µs).
export class ClientGone implements WaitSignal {
  private gone = false;
  private listener?: () => void;
  private readonly target: NodeResponse;
  private readonly onClose = (): void => {
    if (this.target.writableFinished || this.gone) return;
    this.gone = true;
    this.listener?.();
  };

  constructor(response: unknown) {
    this.target = ((response as { raw?: unknown }).raw ?? response) as NodeResponse;
    this.target.on('close', this.onClose);
  }

  /** True once the client went away before its answer was sent. */
  get aborted(): boolean {
    return this.gone;
  }

  /** One listener at a time: the held request's. */
  addEventListener(_type: 'abort', listener: () => void): void {
    this.listener = listener;
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    if (this.listener === listener) this.listener = undefined;
  }

  /** The answer is out (or failed): stop listening. */
  release(): void {
    this.target.removeListener('close', this.onClose);
  }
}
