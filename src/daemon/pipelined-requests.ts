import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { NextListener } from '../http/request-front.js';

/**
 * Runs the requests pipelined on one connection one after the other: Node
 * hands each to the listener as soon as it is parsed, so a `GET` sent before
 * a `POST` could otherwise see the `POST`'s effect. A request starts once the
 * answer before it has finished (their answers go out in that order anyway);
 * when the connection closes, the requests still waiting are dropped.
 */
export function inRequestOrder() {
  const waiting = new WeakMap<Socket, Array<() => void>>();
  const start = (req: IncomingMessage, res: ServerResponse, next: NextListener) => {
    const socket = req.socket;
    let done = false;
    const finished = () => {
      if (done) return;
      done = true;
      const queue = waiting.get(socket);
      const following = res.writableFinished ? queue?.shift() : undefined;
      if (following) following();
      else waiting.delete(socket);
    };
    res.once('finish', finished);
    res.once('close', finished);
    next(req, res);
  };
  return (req: IncomingMessage, res: ServerResponse, next: NextListener): void => {
    const queue = waiting.get(req.socket);
    if (queue) queue.push(() => start(req, res, next));
    else {
      waiting.set(req.socket, []);
      start(req, res, next);
    }
  };
}
