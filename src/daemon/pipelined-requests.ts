import type { Socket } from 'node:net';
import type { FrontRequest, FrontStage } from '../http/front-door.js';

/**
 * Runs the requests pipelined on one connection one after the other: Node
 * hands each to the listener as soon as it is parsed, so a `GET` sent before
 * a `POST` could otherwise see the `POST`'s effect. A request starts once the
 * answer before it has finished (their answers go out in that order anyway);
 * when the connection closes, the requests still waiting are dropped.
 */
export function inRequestOrder(): FrontStage {
  const waiting = new WeakMap<Socket, Array<() => void>>();
  const start = ({ req, res }: FrontRequest, next: () => void) => {
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
    next();
  };
  return (request, next) => {
    const queue = waiting.get(request.req.socket);
    if (queue) queue.push(() => start(request, next));
    else {
      waiting.set(request.req.socket, []);
      start(request, next);
    }
  };
}
