import type { INestApplication } from '@nestjs/common';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { ApiException } from '../errors/api-exception.js';
import { apiError } from '../errors/api-errors.js';
import { putInFront, type NextListener } from '../http/request-front.js';
import { sendApiError } from '../errors/send-api-error.js';
import { inRequestOrder } from './pipelined-requests.js';
import { controllerRoutes, RouteTable, type Route } from './route-table.js';

/** Methods both frameworks route themselves; on an unknown path they answer their (JSON) 404. */
const ROUTED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH']);

/** What the gate does with one request. */
export type GateVerdict =
  | { kind: 'pass' }
  | { kind: 'refuse'; error: ApiException; headers?: OutgoingHttpHeaders }
  /** A plain `OPTIONS` on a route: `204` with `Allow`. */
  | { kind: 'options'; allow: string };

const PASS: GateVerdict = { kind: 'pass' };

/**
 * What the daemon answers before Express or Fastify sees a request, so both
 * adapters answer alike:
 * - a declared `Content-Length` over the body limit → `413 payload_too_large`
 *   at once, without reading the body, and the connection closed;
 * - a method a path does not answer → `405 method_not_allowed` with `Allow`;
 *   a plain `OPTIONS` → `204` with `Allow` (CORS preflights are answered
 *   outside, by the browser walls); on a path no route has, a method the
 *   frameworks do not route (`QUERY`, `OPTIONS`, …) → `404 not_found`.
 */
export function judgeMethod(
  method: string,
  url: string,
  headers: IncomingHttpHeaders,
  routes: RouteTable,
  maxBodyBytes: number,
): GateVerdict {
  if (Number(headers['content-length']) > maxBodyBytes) {
    return { kind: 'refuse', error: apiError('payload_too_large'), headers: { connection: 'close' } };
  }
  const query = url.indexOf('?');
  const allowed = routes.allowed(query === -1 ? url : url.slice(0, query));
  if (!allowed) return ROUTED_METHODS.has(method) ? PASS : { kind: 'refuse', error: apiError('not_found') };
  if (method !== 'OPTIONS' && allowed.includes(method)) return PASS;
  const allow = allowed.join(', ');
  return method === 'OPTIONS' ? { kind: 'options', allow } : { kind: 'refuse', error: apiError('method_not_allowed'), headers: { allow } };
}

/** {@link judgeMethod} in front of the framework: answers what it refuses, passes the rest on. */
export function requestGate(routes: RouteTable, maxBodyBytes: number) {
  return (req: IncomingMessage, res: ServerResponse, next: NextListener): void => {
    const verdict = judgeMethod(req.method ?? '', req.url ?? '/', req.headers, routes, maxBodyBytes);
    if (verdict.kind === 'pass') return next(req, res);
    if (verdict.kind === 'refuse') return sendApiError(res, verdict.error, verdict.headers);
    res.writeHead(204, { allow: verdict.allow });
    res.end();
  };
}

/** What SwaggerModule serves (UI, its assets, the document), outside the controllers. */
const DOCS_ROUTES: Route[] = ['docs', 'docs/*', 'docs-json', 'docs-yaml'].map((path) => ({ method: 'GET', path }));

/**
 * Puts {@link inRequestOrder}, then {@link requestGate}, in front of the
 * framework (the cluster router and the browser walls go in front of them).
 */
export function installRequestGate(app: INestApplication, maxBodyBytes: number): void {
  const server = app.getHttpServer() as Server;
  putInFront(server, requestGate(new RouteTable([...controllerRoutes(app), ...DOCS_ROUTES]), maxBodyBytes));
  putInFront(server, inRequestOrder());
}
