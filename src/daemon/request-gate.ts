import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { ApiException } from '../errors/api-exception.js';
import { apiError } from '../errors/api-errors.js';
import type { FrontStage } from '../http/front-door.js';
import type { Route } from './route-table.js';

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
 * What the daemon answers before Express or Fastify sees a request, so both adapters answer alike
 * (docs/decisions.md#the-daemons-request-gate). `allowed`: the methods the request's path answers, `undefined` for none.
 */
export function judgeMethod(
  method: string,
  allowed: readonly string[] | undefined,
  headers: IncomingHttpHeaders,
  maxBodyBytes: number,
): GateVerdict {
  if (Number(headers['content-length']) > maxBodyBytes) {
    return { kind: 'refuse', error: apiError('payload_too_large'), headers: { connection: 'close' } };
  }
  if (!allowed) return ROUTED_METHODS.has(method) ? PASS : { kind: 'refuse', error: apiError('not_found') };
  if (method !== 'OPTIONS' && allowed.includes(method)) return PASS;
  const allow = allowed.join(', ');
  return method === 'OPTIONS' ? { kind: 'options', allow } : { kind: 'refuse', error: apiError('method_not_allowed'), headers: { allow } };
}

/** {@link judgeMethod} as a front door stage: answers what it refuses, passes the rest on. */
export function requestGate(maxBodyBytes: number): FrontStage {
  return (request, next) => {
    const { req, res } = request;
    const verdict = judgeMethod(req.method ?? '', request.routes?.allowed, req.headers, maxBodyBytes);
    if (verdict.kind === 'pass') return next();
    if (verdict.kind === 'refuse') return request.sendError(verdict.error, verdict.headers);
    res.writeHead(204, { allow: verdict.allow });
    res.end();
  };
}

/**
 * What SwaggerModule serves (UI, its assets, the document), outside the controllers: the one place the docs paths
 * are named. All go by one route template, `/docs`, in the request log and metrics.
 */
export const DOCS_ROUTES: Route[] = ['docs', 'docs/*', 'docs-json', 'docs-yaml'].map((path) => ({
  method: 'GET',
  path,
  template: '/docs',
}));
