import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** Passes a request on to the listeners that were there before. */
export type NextListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Puts `handler` in front of the server's current `request` listeners (the
 * HTTP framework, or an earlier front): it sees every request first, before
 * any framework parses it, and calls `next` to pass it on. The same under
 * Express and Fastify.
 */
export function putInFront(server: Server, handler: (req: IncomingMessage, res: ServerResponse, next: NextListener) => void): void {
  const behind = server.listeners('request') as NextListener[];
  server.removeAllListeners('request');
  const next: NextListener = (req, res) => {
    for (const listener of behind) listener.call(server, req, res);
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => handler(req, res, next));
}
