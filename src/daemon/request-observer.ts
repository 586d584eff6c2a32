import { randomUUID } from 'node:crypto';
import type { FrontRequest, FrontStage } from '../http/front-door.js';
import type { DaemonLogger } from '../logging/daemon-logger.js';
import type { TurnsMetrics } from '../metrics/turns-metrics.js';
import { tracingEnabled, withIncomingContext } from '../telemetry/tracing.js';

/** A client's own request id is kept when it is short and plain; otherwise one is made. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Status recorded for a request the client abandoned before any answer (nginx's convention). */
const CLIENT_CLOSED = 499;

/**
 * Every HTTP exchange, seen from the Node server itself — so requests the
 * framework never routes (unknown paths, forwarded ones, refusals before
 * Nest) count too: an `X-Request-Id` (the client's, or a new one, echoed on
 * the answer and passed on when forwarded), the trace context the request
 * carries, and when it ends one metrics observation and one log line, by
 * route template.
 */
export class RequestObserver {
  constructor(
    private readonly metrics: TurnsMetrics | undefined,
    private readonly logger: DaemonLogger | undefined,
  ) {}

  /**
   * The front door's outermost stage: observes the request (its id goes on
   * every answer) and runs the rest in the trace context it carries.
   */
  readonly stage: FrontStage = (request, next) => {
    request.headers['x-request-id'] = this.observe(request);
    if (request.req.headers.traceparent === undefined || !tracingEnabled()) next();
    else withIncomingContext(request.req.headers, next);
  };

  /** Starts observing one exchange; returns its request id. */
  private observe(request: FrontRequest): string {
    const { req, res } = request;
    const started = performance.now();
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    // A forwarded request carries the same id to the owner, so both nodes log one id.
    req.headers['x-request-id'] = requestId;
    // A response closes once: `on` spares the wrapper `once` makes.
    res.on('close', () => {
      const durationMs = performance.now() - started;
      const route = request.template;
      const status = res.headersSent ? res.statusCode : CLIENT_CLOSED;
      this.metrics?.observeHttp(req.method, route, status, durationMs / 1_000);
      if (this.logger?.requestEnabled(route, status)) {
        this.logger.request({
          requestId,
          method: req.method ?? 'GET',
          route,
          status,
          durationMs: Math.round(durationMs * 100) / 100,
          sessionId: request.sessionId,
          aborted: res.writableFinished ? undefined : true,
        });
      }
    });
    return requestId;
  }
}
