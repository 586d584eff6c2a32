import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
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
const FRONT_REQUEST = Symbol('nest-turn-status.frontRequest');

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
   * Headers for the answer (`X-Request-Id`, CORS, the node's name). Kept here,
   * not on the raw response, so Fastify writes them with its own head
   * (a header set on the raw response first sends Node's `writeHead` down its slow path).
   */
  readonly headers: Record<string, string> = {};
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
    (req as { [FRONT_REQUEST]?: FrontRequest })[FRONT_REQUEST] = this;
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

  /** Answers `error` here, outside the framework, with {@link headers} and `extra`. */
  sendError(error: ApiException, extra?: OutgoingHttpHeaders): void {
    sendApiError(this.res, error, extra ? { ...this.headers, ...extra } : this.headers);
  }

  /** Puts {@link headers} on the raw response: before answering or forwarding on it outside the framework. */
  writeHeadersRaw(): void {
    for (const name in this.headers) this.res.setHeader(name, this.headers[name]!);
  }
}

/** The {@link FrontRequest} the front door made of a raw request, if it did. */
export function frontRequestOf(req: object): FrontRequest | undefined {
  return (req as { [FRONT_REQUEST]?: FrontRequest })[FRONT_REQUEST];
}

/**
 * One step in front of the framework: answers the request itself, or calls
 * `next` (at once or later) to pass it to the following stage.
 */
export type FrontStage = (request: FrontRequest, next: () => void) => void;

/** How the front door hands a request over to the framework. */
export interface FrontDoorOptions {
  /** The routes the request is parsed against. */
  routes?: RouteMatcher;
  /** The framework puts {@link FrontRequest.headers} on its reply itself (Fastify's hook); else they go on the raw response. */
  headersOnReply?: boolean;
}

/**
 * Stands `stages`, in this order, in front of the server's `request`
 * listeners (the HTTP framework): each request is parsed once into a
 * {@link FrontRequest} and passed down the list; what the last stage lets
 * through reaches the framework. Install once, after the app is initialized.
 */
export function installFrontDoor(server: Server, stages: readonly FrontStage[], options: FrontDoorOptions = {}): void {
  const framework = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  const handOff = (request: FrontRequest) => {
    if (!options.headersOnReply) request.writeHeadersRaw();
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
