import type { EventEmitter } from 'node:events';

type NodeResponse = EventEmitter & { writableFinished?: boolean };

/** What {@link clientGone} gives: the signal, and `release` to call once the answer is out (or failed). */
export interface ClientGone {
  readonly signal: AbortSignal;
  release(): void;
}

/**
 * An `AbortSignal` that aborts when the client goes away before its answer
 * was sent (the connection closed). Works on Express and Fastify alike: both
 * sit on Node's `ServerResponse` (a Fastify reply keeps it as `raw`).
 */
export function clientGone(response: unknown): ClientGone {
  const target = ((response as { raw?: unknown }).raw ?? response) as NodeResponse;
  const controller = new AbortController();
  const onClose = (): void => {
    if (!target.writableFinished) controller.abort();
  };
  target.once('close', onClose);
  return { signal: controller.signal, release: () => target.removeListener('close', onClose) };
}
