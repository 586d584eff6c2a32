import { ServerResponse, type IncomingMessage, type OutgoingHttpHeaders, type Server } from 'node:http';
import type { ApiException } from '../errors/api-exception.js';
import { sendApiError } from '../errors/send-api-error.js';
import { sessionIdOf } from './session-path.js';

/** What the app's routes say about one method of a path. */
export interface RouteInfo {
  /** The route's pattern (`/session/:id/turns/:promptId`). */
  readonly template: string;
  /** Answered without the bearer token (`@Public()`). */
  readonly public: boolean;
}

/** The routes one path has: the methods it answers (sorted) and, per method, its route. */
export interface PathRoutes {
  readonly allowed: readonly string[];
  route(method: string): RouteInfo | undefined;
}

/** Finds the routes of a raw (still percent-encoded) path; `undefined` when it has none. */
export interface RouteMatcher {
  match(path: string): PathRoutes | undefined;
}

const NOT_READ = Symbol('not read');
const FRONT_HEADERS = Symbol('nest-turn-status.frontHeaders');

type FrontResponse = ServerResponse & { [FRONT_HEADERS]: Record<string, string> };
const nodeWriteHead = ServerResponse.prototype.writeHead;

/**
 * `writeHead` of a response the front door saw: the head carries the front
 * door's headers too, unless the answer set that header itself. Merged into
 * the framework's own header object, so Fastify's head stays on Node's fast
 * path (a header set on the raw response before it took that away: +1.7 µs a
 * response), and no framework hook runs for it (a Fastify `onRequest` hook
 * did this before; this way: 1.096× on a settled Fastify poll, docs/decisions.md).
 */
function writeHeadWithFront(this: FrontResponse, status: number, ...rest: unknown[]): ServerResponse {
  const front = this[FRONT_HEADERS];
  const named = typeof rest[0] === 'string';
  const headers = (named ? rest[1] : rest[0]) as OutgoingHttpHeaders | unknown[] | undefined;
  if (headers === undefined || headers === null || Array.isArray(headers)) {
    // Express (and Node's implicit head) set theirs on the response: add the missing ones there.
    for (const name in front) if (!this.hasHeader(name)) this.setHeader(name, front[name]!);
  } else {
    for (const name in front) if (!hasName(headers, name) && !this.hasHeader(name)) headers[name] = front[name];
  }
  return (nodeWriteHead as (this: ServerResponse, ...args: unknown[]) => ServerResponse).call(this, status, ...rest);
}

/** Whether `headers` has `name` (lower-case) under any case: a host's `writeHead(200, { Vary: … })` sets `vary`. */
function hasName(headers: OutgoingHttpHeaders, name: string): boolean {
  if (headers[name] !== undefined) return true;
  for (const key in headers) if (key.length === name.length && key.toLowerCase() === name) return true;
  return false;
}

/**
 * One request as the front door parsed it, once, for every stage: its path,
 * query, session and routes, and the headers every answer to it carries.
 */
export class FrontRequest {
  readonly path: string;
  /** What follows `?` (without it), or `''`. */
  readonly query: string;
  /** The routes of the path; `undefined` when no route has it. */
  readonly routes: PathRoutes | undefined;
  /**
   * Headers every answer to this request carries (`x-request-id`, CORS, the
   * node's name), by lower-case name: added to the response's head when it is
   * written, whoever writes it (a stage, the framework, the forwarder), where
   * the answer did not set the same header itself.
   */
  readonly headers: Record<string, string>;
  /** What the request log and metrics call this exchange when a stage answers it as something else (`forwarded`). */
  label: string | undefined;
  private session: string | undefined | typeof NOT_READ = NOT_READ;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    matcher: RouteMatcher | undefined,
  ) {
    const url = req.url ?? '/';
    const mark = url.indexOf('?');
    this.path = mark === -1 ? url : url.slice(0, mark);
    this.query = mark === -1 ? '' : url.slice(mark + 1);
    this.routes = matcher?.match(this.path);
    // A second front door in front of the same response (a host's walls inside the cluster router's) shares the first's headers.
    const front = res as FrontResponse;
    this.headers = front[FRONT_HEADERS] ??= {};
    res.writeHead = writeHeadWithFront as ServerResponse['writeHead'];
  }

  /** The session the path addresses (a UUID), if any: read once, when first asked for. */
  get sessionId(): string | undefined {
    if (this.session === NOT_READ) this.session = sessionIdOf(this.path);
    return this.session;
  }

  /** The route that answers this method here (a `HEAD` its `GET`'s), if any. */
  get route(): RouteInfo | undefined {
    return this.routes?.route(this.req.method ?? 'GET');
  }

  /** Its name in the request log and metrics: the {@link label}, the matched route's template, or `unmatched` — never the path. */
  get template(): string {
    return this.label ?? this.route?.template ?? 'unmatched';
  }

  /** Answers `error` here, outside the framework, with `extra` besides {@link headers}. */
  sendError(error: ApiException, extra?: OutgoingHttpHeaders): void {
    sendApiError(this.res, error, extra);
  }
}

/**
 * One step in front of the framework: answers the request itself, or calls
 * `next` (at once or later) to pass it to the following stage.
 */
export type FrontStage = (request: FrontRequest, next: () => void) => void;

/** How the front door parses a request. */
export interface FrontDoorOptions {
  /** The routes the request is parsed against. */
  routes?: RouteMatcher;
}

/**
 * Stands `stages`, in this order, in front of the server's `request`
 * listeners (the HTTP framework): each request is parsed once into a
 * {@link FrontRequest} and passed down the list; what the last stage lets
 * through reaches the framework. Install after the app is initialized; a
 * second door installed later stands behind the first and shares its headers.
 */
export function installFrontDoor(server: Server, stages: readonly FrontStage[], options: FrontDoorOptions = {}): void {
  const framework = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  const handOff = (request: FrontRequest) => {
    for (const listener of framework) listener.call(server, request.req, request.res);
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const request = new FrontRequest(req, res, options.routes);
    let index = 0;
    const next = (): void => {
      const stage = stages[index++];
      if (stage) stage(request, next);
      else handOff(request);
    };
    next();
  });
}
