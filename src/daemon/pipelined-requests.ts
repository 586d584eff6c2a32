import type { ServerResponse } from 'node:http';
import type { FrontStage } from '../http/front-door.js';

/** One connection's requests: the one being answered, and those waiting behind it. */
interface Line {
  current: ServerResponse;
  readonly waiting: Array<{ res: ServerResponse; start: () => void }>;
}

type LinedSocket = Record<symbol, Line | undefined>;

/**
 * Runs the requests pipelined on one connection one after the other: Node
 * hands each to the listener as soon as it is parsed, so a `GET` sent before
 * a `POST` could otherwise see the `POST`'s effect. A request starts once the
 * answer before it has finished (their answers go out in that order anyway);
 * when the connection closes under an answer, the requests still waiting are
 * dropped. A request with none before it costs no listener: only one that
 * waits makes the answer before it call on closing.
 */
export function inRequestOrder(): FrontStage {
  // Kept on the socket itself, under a key of this orderer's own.
  const LINE = Symbol('requestLine');
  const advance = (socket: LinedSocket, line: Line) => {
    if (!line.current.writableFinished) {
      // Closed under an answer: the connection is gone, and what waits with it.
      delete socket[LINE];
      return;
    }
    const following = line.waiting.shift();
    if (!following) return;
    line.current = following.res;
    if (line.waiting.length > 0) following.res.on('close', () => advance(socket, line));
    following.start();
  };
  return (request, next) => {
    const socket = request.req.socket as unknown as LinedSocket;
    const line = socket[LINE];
    if (line === undefined) {
      socket[LINE] = { current: request.res, waiting: [] };
      return next();
    }
    if (line.waiting.length === 0 && line.current.writableFinished) {
      line.current = request.res;
      return next();
    }
    // The first to wait behind the current answer has it call on closing (a response closes once).
    if (line.waiting.length === 0) line.current.on('close', () => advance(socket, line));
    line.waiting.push({ res: request.res, start: next });
  };
}
