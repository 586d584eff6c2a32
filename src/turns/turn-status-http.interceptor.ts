import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { map, Observable } from 'rxjs';
import { NotModifiedException } from '../common/not-modified.exception.js';
import { etagMatches, serializeTurnStatus } from './serialized-turn-status.js';
import type { TurnStatus } from './turn-status.js';

export { turnStatusEtag } from './serialized-turn-status.js';

/** Seconds a client is asked to wait before polling a live prompt again. */
export const LIVE_POLL_HINT_SECONDS = 1;

/**
 * HTTP conventions of the turn routes: `Cache-Control: no-cache`, an `ETag`
 * with `If-None-Match` → 304, and a `Retry-After` hint while the prompt is
 * live. The body goes out as the status's cached JSON text (no
 * serialization per poll). Uses only the adapter-neutral `HttpAdapterHost`
 * API.
 */
@Injectable()
export class TurnStatusHttpInterceptor implements NestInterceptor<TurnStatus, string> {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  intercept(context: ExecutionContext, next: CallHandler<TurnStatus>): Observable<string> {
    const http = context.switchToHttp();
    const request = http.getRequest<{ headers: Record<string, string | undefined> }>();
    const response = http.getResponse();
    const adapter = this.adapterHost.httpAdapter;
    return next.handle().pipe(
      map((status) => {
        const { body, etag } = serializeTurnStatus(status);
        adapter.setHeader(response, 'Cache-Control', 'no-cache');
        adapter.setHeader(response, 'ETag', etag);
        if (status.state === 'queued' || status.state === 'running') {
          adapter.setHeader(response, 'Retry-After', String(LIVE_POLL_HINT_SECONDS));
        }
        if (etagMatches(request.headers['if-none-match'], etag)) throw new NotModifiedException(etag);
        adapter.setHeader(response, 'Content-Type', 'application/json; charset=utf-8');
        return body;
      }),
    );
  }
}
