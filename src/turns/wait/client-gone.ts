import type { EventEmitter } from 'node:events';

/** The Node response under an Express response or a Fastify reply. */
function nodeResponse(response: unknown): EventEmitter & { writableFinished?: boolean } {
  const raw = (response as { raw?: unknown }).raw ?? response;
  return raw as EventEmitter & { writableFinished?: boolean };
}

/**
 * An AbortSignal that fires when the client goes away before its answer was
 * sent (the connection closed); works on Express and Fastify alike, since
 * both sit on Node's `ServerResponse`. Call the returned `done` once answered.
 */
export function clientGone(response: unknown): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  const target = nodeResponse(response);
  const onClose = () => {
    if (!target.writableFinished) controller.abort();
  };
  target.once('close', onClose);
  return { signal: controller.signal, done: () => target.removeListener('close', onClose) };
}
