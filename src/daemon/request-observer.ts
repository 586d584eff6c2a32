import type { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ServerResponse, type IncomingMessage, type Server } from 'node:http';
import { putInFront } from '../http/request-front.js';
import { setRouteTemplate, stampedRouteTemplate } from '../http/route-template.js';
import { sessionIdOf } from '../http/session-path.js';
import type { DaemonLogger } from '../logging/daemon-logger.js';
import type { TurnsMetrics } from '../metrics/turns-metrics.js';
import { tracingEnabled, withIncomingContext } from '../telemetry/tracing.js';

/** A client's own request id is kept when it is short and plain; otherwise one is made. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Status recorded for a request the client abandoned before any answer (nginx's convention). */
const CLIENT_CLOSED = 499;
/** Where a Fastify response keeps its request id until its head is written. */
const REQUEST_ID_OF = Symbol('nest-turn-status.requestId');
type Headed = ServerResponse & { [REQUEST_ID_OF]: string };
const writeHead = ServerResponse.prototype.writeHead as (
  this: ServerResponse,
  status: number,
  reason?: unknown,
  headers?: unknown,
) => ServerResponse;

/**
 * Every HTTP exchange, seen from the Node server itself — so requests the
 * framework never routes (unknown paths, forwarded ones, refusals before
 * Nest) count too: an `X-Request-Id` (the client's, or a new one, echoed on
 * the answer and passed on when forwarded), the trace context the request
 * carries, and when it ends one metrics observation and one log line, by
 * route template.
 */
export class RequestObserver {
  private fastify = false;

  constructor(
    private readonly metrics: TurnsMetrics | undefined,
    private readonly logger: DaemonLogger | undefined,
  ) {}

  /** Before `init`: Fastify names the matched route in a hook (Express keeps it on the request). */
  prepare(app: INestApplication, httpAdapter: 'express' | 'fastify'): void {
    this.fastify = httpAdapter === 'fastify';
    if (!this.fastify) return;
    app
      .getHttpAdapter()
      .getInstance()
      .addHook('onRequest', (request: { raw: object; routeOptions?: { url?: string } }, _reply: unknown, done: () => void) => {
        if (request.routeOptions?.url) setRouteTemplate(request.raw, request.routeOptions.url);
        done();
      });
  }

  /** After `init` (the cluster router is in place): wraps every request listener of the server. */
  install(app: INestApplication): void {
    putInFront(app.getHttpServer() as Server, (req, res, next) => {
      this.observe(req, res);
      if (req.headers.traceparent === undefined || !tracingEnabled()) next(req, res);
      else withIncomingContext(req.headers, () => next(req, res));
    });
  }

  private observe(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    // A forwarded request carries the same id to the owner, so both nodes log one id.
    req.headers['x-request-id'] = requestId;
    if (this.fastify) {
      (res as Headed)[REQUEST_ID_OF] = requestId;
      res.writeHead = writeHeadWithRequestId as typeof res.writeHead;
    } else {
      // Express sets its own headers with setHeader too: one more costs what it costs.
      res.setHeader('X-Request-Id', requestId);
    }
    // A response closes once: `on` spares the wrapper `once` makes.
    res.on('close', () => {
      const durationMs = performance.now() - started;
      const route = routeOf(req);
      const status = res.headersSent ? res.statusCode : CLIENT_CLOSED;
      this.metrics?.observeHttp(req.method, route, status, durationMs / 1_000);
      if (this.logger?.requestEnabled(route, status)) {
        this.logger.request({
          requestId,
          method: req.method ?? 'GET',
          route,
          status,
          durationMs: Math.round(durationMs * 100) / 100,
          sessionId: sessionIdOf(req.url),
          aborted: res.writableFinished ? undefined : true,
        });
      }
    });
  }
}

/** The matched route template: stamped (Fastify, forwarding), Express's, the docs, or `unmatched` — never the path. */
function routeOf(req: IncomingMessage): string {
  const stamped = stampedRouteTemplate(req) ?? (req as { route?: { path?: unknown } }).route?.path;
  if (typeof stamped === 'string') return stamped;
  return req.url !== undefined && /^\/docs(?:-json|[/?]|$)/.test(req.url) ? '/docs' : 'unmatched';
}

/**
 * `writeHead` with `X-Request-Id` put into the header object Fastify passes
 * (any other caller gets it by `setHeader`): a header set on the response
 * beforehand sends Node's `writeHead` down its slow path, which merged
 * Fastify's headers one by one (+1.7 µs a response).
 */
function writeHeadWithRequestId(this: Headed, statusCode: number, reason?: unknown, headers?: unknown): ServerResponse {
  const id = this[REQUEST_ID_OF];
  const given = typeof reason === 'object' && reason !== null ? reason : headers;
  if (typeof given === 'object' && given !== null && !Array.isArray(given)) (given as Record<string, unknown>)['x-request-id'] ??= id;
  else if (!this.hasHeader('x-request-id')) this.setHeader('X-Request-Id', id);
  return writeHead.call(this, statusCode, reason, headers);
}
