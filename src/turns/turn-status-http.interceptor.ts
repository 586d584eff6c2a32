import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { createHash } from 'node:crypto';
import { map, Observable } from 'rxjs';
import { NotModifiedException } from '../common/not-modified.exception.js';
import type { TurnStatus } from './turn-status.js';

/** Seconds a client is asked to wait before polling a live prompt again. */
export const LIVE_POLL_HINT_SECONDS = 1;

/**
 * ETags of statuses held in memory. Overlay entries are never mutated (a
 * write-back stores a new object), so an object's tag never goes stale, and a
 * steady-state poll hashes nothing.
 */
const etags = new WeakMap<TurnStatus, string>();

/** A strong validator of exactly the JSON the client receives. */
export function turnStatusEtag(status: TurnStatus): string {
  let etag = etags.get(status);
  if (etag === undefined) {
    etag = `"${createHash('sha256').update(JSON.stringify(status)).digest('base64url').slice(0, 27)}"`;
    etags.set(status, etag);
  }
  return etag;
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const candidate = tag.trim();
    return candidate === '*' || candidate === etag || candidate === `W/${etag}`;
  });
}

/**
 * HTTP conventions of the turn routes: `Cache-Control: no-cache`, an `ETag`
 * with `If-None-Match` → 304, and a `Retry-After` hint while the prompt is
 * live. Uses only the adapter-neutral `HttpAdapterHost` API.
 */
@Injectable()
export class TurnStatusHttpInterceptor implements NestInterceptor<TurnStatus, TurnStatus> {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  intercept(context: ExecutionContext, next: CallHandler<TurnStatus>): Observable<TurnStatus> {
    const http = context.switchToHttp();
    const request = http.getRequest<{ headers: Record<string, string | undefined> }>();
    const response = http.getResponse();
    const adapter = this.adapterHost.httpAdapter;
    return next.handle().pipe(
      map((status) => {
        const etag = turnStatusEtag(status);
        adapter.setHeader(response, 'Cache-Control', 'no-cache');
        adapter.setHeader(response, 'ETag', etag);
        if (status.state === 'queued' || status.state === 'running') {
          adapter.setHeader(response, 'Retry-After', String(LIVE_POLL_HINT_SECONDS));
        }
        if (matches(request.headers['if-none-match'], etag)) throw new NotModifiedException(etag);
        return status;
      }),
    );
  }
}
