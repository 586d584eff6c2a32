import type { IncomingHttpHeaders, OutgoingHttpHeaders, Server } from 'node:http';
import type { ApiException } from '../errors/api-exception.js';
import { hostForbidden, originForbidden, unsupportedMediaType } from '../errors/api-errors.js';
import { installFrontDoor, type FrontStage } from '../http/front-door.js';
import { DEFAULT_CLIENT_ID_HEADER } from '../client-id/client-id-options.js';
import { isLoopback, type DaemonConfig } from './daemon-config.js';

// The daemon drives agents that can run tools, so no web page may reach it
// unless the operator named the page's origin (docs/security.md). These walls stand
// in front of the HTTP framework (and of the cluster router): a refused
// request costs no parsing, no routing and no lookup.

/**
 * What the walls let in, derived once from the configuration.
 *
 * @publicApi
 */
export interface BrowserWallSettings {
  /** Origins named by `TURNS_ALLOW_ORIGINS` (as browsers serialize them), or `'*'` (allowed only with a token). */
  allowOrigins: ReadonlySet<string> | '*';
  /** Host names a request may address besides loopback ones; `undefined`: any (a non-loopback bind without `TURNS_ALLOWED_HOSTS`). */
  allowedHosts?: ReadonlySet<string>;
}

/**
 * What to do with one request.
 *
 * @publicApi
 */
export type WallVerdict =
  /** Answer this error (with the CORS headers of an allowed origin, so its page can read why). */
  | { kind: 'refuse'; error: ApiException; headers?: OutgoingHttpHeaders }
  /** A CORS preflight from an allowed origin: answer `204` with these headers. */
  | { kind: 'preflight'; headers: OutgoingHttpHeaders }
  /** Pass it on, with these CORS headers on the answer (none for a same-origin or non-browser request). */
  | { kind: 'pass'; headers?: OutgoingHttpHeaders };

const ALLOWED_METHODS = 'GET, POST, DELETE, OPTIONS';
const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  DEFAULT_CLIENT_ID_HEADER,
  'If-None-Match',
  'Prefer',
  'Last-Event-ID',
  'X-Qwen-Event-Epoch',
  'Idempotency-Key',
].join(', ');
/** The answer headers a client reads (`nest-turn-status/client` among them). */
const EXPOSED_HEADERS = [
  'ETag',
  'Retry-After',
  'Preference-Applied',
  'X-Turns-Node',
  'X-Turns-Via',
  'X-Qwen-Event-Epoch',
  'X-Qwen-SSE-Stream-Id',
  'Idempotent-Replayed',
  'X-Request-Id',
  // The rate limits' 429 (docs/operating.md#rate-limits).
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
].join(', ');
/** How long a browser may reuse a preflight's answer (seconds). */
const PREFLIGHT_MAX_AGE = '600';
const PASS: WallVerdict = { kind: 'pass' };
/** Where web UIs are let in, every answer depends on Origin, also one without CORS headers (caches must know). */
const PASS_VARYING: WallVerdict = { kind: 'pass', headers: { vary: 'Origin' } };

/**
 * The walls of a daemon with this configuration.
 *
 * @publicApi
 */
export function browserWallSettings(config: DaemonConfig): BrowserWallSettings {
  const allowOrigins = config.allowOrigins?.includes('*') ? '*' : new Set(config.allowOrigins ?? []);
  // A loopback bind answers to loopback names only, unless more are listed; any other bind to what is listed, if anything.
  const hosts = config.allowedHosts ?? (isLoopback(config.host) ? [] : undefined);
  // Peers forward to this node by its TURNS_NODE_URL: its own name is always one it answers to.
  const peerName = config.nodeUrl ? [hostnameOf(new URL(config.nodeUrl).host)] : [];
  return { allowOrigins, allowedHosts: hosts && new Set([...hosts, ...peerName]) };
}

/** The host name of a `Host` header, lower-cased and without its port (`[::1]:80` → `[::1]`). */
export function hostnameOf(host: string): string {
  const lower = host.toLowerCase();
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
  const colon = lower.indexOf(':');
  return colon === -1 ? lower : lower.slice(0, colon);
}

/** True for `application/json`, with or without parameters (what both adapters parse as JSON). */
export function isJsonMediaType(contentType: string): boolean {
  const semicolon = contentType.indexOf(';');
  return (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase() === 'application/json';
}

/** A loopback name is always safe: a rebinding page addresses the daemon by its own name, never by `localhost`. */
function hostAllowed(host: string | undefined, allowed: ReadonlySet<string> | undefined): boolean {
  if (!allowed || host === undefined) return true;
  const name = hostnameOf(host);
  return isLoopback(name) || allowed.has(name);
}

/** A page of the daemon itself (Swagger UI at `/docs`): its origin names the host the request addresses. */
function isOwnOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  const lower = origin.toLowerCase();
  const authority = host.toLowerCase();
  return lower === `http://${authority}` || lower === `https://${authority}`;
}

/** The request carries a body: a length above zero, or a chunked one. */
function declaresBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * The walls' decision on one request, from its method and headers alone:
 * 1. a `Host` that is not one this daemon answers to (DNS rebinding) → `403`;
 * 2. an `Origin` that is neither the daemon's own nor allowed → `403`;
 * 3. a CORS preflight from an allowed origin → `204` with the CORS headers;
 * 4. a body (or a media type) that is not `application/json` on any method
 *    but GET, HEAD and OPTIONS → `415`, whatever the route would default;
 * 5. else pass, with the CORS headers when the origin is an allowed one.
 */
export function judgeRequest(method: string | undefined, headers: IncomingHttpHeaders, settings: BrowserWallSettings): WallVerdict {
  if (!hostAllowed(headers.host, settings.allowedHosts)) return { kind: 'refuse', error: hostForbidden() };
  const origin = headers.origin;
  let cors: OutgoingHttpHeaders | undefined;
  if (origin !== undefined) {
    // `null` (sandboxed frames, file: and data: pages) is nobody's origin, whatever the list says.
    const allowed = origin !== 'null' && (settings.allowOrigins === '*' || settings.allowOrigins.has(origin.toLowerCase()));
    if (allowed) cors = { 'access-control-allow-origin': origin, vary: 'Origin' };
    else if (!isOwnOrigin(origin, headers.host)) return { kind: 'refuse', error: originForbidden() };
  }
  if (method === 'OPTIONS' && cors && headers['access-control-request-method'] !== undefined) {
    return {
      kind: 'preflight',
      headers: {
        ...cors,
        'access-control-allow-methods': ALLOWED_METHODS,
        'access-control-allow-headers': ALLOWED_HEADERS,
        'access-control-max-age': PREFLIGHT_MAX_AGE,
        // Chrome asks before a public page may reach a loopback daemon (Private Network Access).
        ...(headers['access-control-request-private-network'] === 'true' && { 'access-control-allow-private-network': 'true' }),
      },
    };
  }
  if (cors) cors['access-control-expose-headers'] = EXPOSED_HEADERS;
  if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS') {
    const type = headers['content-type'];
    if (type === undefined ? declaresBody(headers) : !isJsonMediaType(type)) {
      return { kind: 'refuse', error: unsupportedMediaType(), headers: cors };
    }
  }
  if (cors) return { kind: 'pass', headers: cors };
  return settings.allowOrigins === '*' || settings.allowOrigins.size > 0 ? PASS_VARYING : PASS;
}

/** {@link judgeRequest} as a front door stage: answers what it refuses and preflights, passes the rest on. */
export function browserWalls(settings: BrowserWallSettings): FrontStage {
  return (request, next) => {
    const verdict = judgeRequest(request.req.method, request.req.headers, settings);
    if (verdict.kind === 'pass') {
      if (verdict.headers) Object.assign(request.headers, verdict.headers);
      return next();
    }
    // The request is answered here; what it still sends is read and dropped.
    request.req.resume();
    if (verdict.kind === 'preflight') {
      request.res.writeHead(204, { ...verdict.headers, 'content-length': 0 });
      request.res.end();
      return;
    }
    request.sendError(verdict.error, verdict.headers);
  };
}

/**
 * Stands the walls in front of everything else on the server: install them
 * last, after the app is initialized. `createApp` does (as a stage of its
 * front door); a host that mounts `RuntimeModule` in an app of its own calls
 * this itself.
 *
 * @publicApi
 */
export function installBrowserWalls(server: Server, settings: BrowserWallSettings): void {
  installFrontDoor(server, [browserWalls(settings)]);
}
