import { Injectable, Optional, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { HttpAdapterHost, Reflector } from '@nestjs/core';
import { defer, from, lastValueFrom, type Observable } from 'rxjs';
import { CLIENT_ID_REQUEST_KEY, type GuardedRequest } from '../client-id/client-id.guard.js';
import { ClientIdOptions, DEFAULT_CLIENT_ID_HEADER } from '../client-id/client-id-options.js';
import { IDEMPOTENT_REPLAYED_HEADER, idempotencyScope, parseIdempotencyKey } from './idempotency-key.js';
import { IdempotencyStore, type IdempotentAnswer } from './idempotency-store.js';
import { SharedIdempotencyKeys } from './shared-idempotency-keys.js';
import { principalOf } from '../http/request-principal.js';
import { requestFingerprint } from './request-fingerprint.js';

/** What a route's key is scoped to (set by `@IdempotentRoute`). */
export type IdempotentRouteKind = 'prompt' | 'session';
/** A route's idempotency: what its keys are scoped to, and its one success status (a replay answers with it). */
export interface IdempotentRouteMetadata {
  kind: IdempotentRouteKind;
  status: number;
}
export const IDEMPOTENT_ROUTE = Symbol('IDEMPOTENT_ROUTE');

/** Where the interceptor leaves the key of a first request for the handler (`@AdmissionIdempotency()`). */
export const IDEMPOTENCY_REQUEST_KEY = 'turnsIdempotency';

/** The key of a request being processed for the first time, as the transcript records it. */
export interface AdmissionIdempotency {
  key: string;
  fingerprint: string;
}

type IdempotentRequest = GuardedRequest & { body?: unknown; [IDEMPOTENCY_REQUEST_KEY]?: AdmissionIdempotency };

/**
 * `Idempotency-Key` on a route marked `@IdempotentRoute` (docs/idempotency.md): runs
 * after the guards (so session and client id are checked first) and before
 * the body's validation. A repeat with the same body gets the first answer
 * and `Idempotent-Replayed: true`; the handler does not run.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly clientIdHeader: string;

  constructor(
    private readonly store: IdempotencyStore,
    private readonly reflector: Reflector,
    private readonly adapterHost: HttpAdapterHost,
    @Optional() clientIds?: ClientIdOptions,
    @Optional() private readonly shared?: SharedIdempotencyKeys,
  ) {
    this.clientIdHeader = (clientIds?.header ?? DEFAULT_CLIENT_ID_HEADER).toLowerCase();
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const route = this.reflector.get<IdempotentRouteMetadata | undefined>(IDEMPOTENT_ROUTE, context.getHandler());
    const http = context.switchToHttp();
    const request = http.getRequest<IdempotentRequest>();
    const key = route && parseIdempotencyKey(request.headers['idempotency-key']);
    if (!route || key === undefined) return next.handle();
    const scoped = this.scopedKey(route.kind, request, key);
    const fingerprint = requestFingerprint(request.body);
    const replayed = (answer: IdempotentAnswer) => {
      this.adapterHost.httpAdapter.setHeader(http.getResponse(), IDEMPOTENT_REPLAYED_HEADER, 'true');
      return answer.body;
    };
    // A create's key has no session to live with: across a cluster's nodes, the shared keys decide.
    const { shared } = this;
    if (route.kind === 'session' && shared) return defer(() => this.acrossNodes(shared, route, scoped, fingerprint, next, replayed));
    const replay = this.store.begin(scoped, fingerprint);
    if (replay) return from([replayed(replay)]);
    request[IDEMPOTENCY_REQUEST_KEY] = { key, fingerprint };
    const { status } = route;
    return defer(async () => {
      try {
        const body = await lastValueFrom(next.handle(), { defaultValue: undefined });
        this.store.complete(scoped, { status, body });
        return body;
      } catch (error) {
        this.store.abandon(scoped);
        throw error;
      }
    });
  }

  private async acrossNodes(
    shared: SharedIdempotencyKeys,
    route: IdempotentRouteMetadata,
    scoped: string,
    fingerprint: string,
    next: CallHandler,
    replayed: (answer: IdempotentAnswer) => unknown,
  ): Promise<unknown> {
    const replay = await shared.begin(scoped, fingerprint);
    if (replay) return replayed(replay);
    let body: unknown;
    try {
      body = await lastValueFrom(next.handle(), { defaultValue: undefined });
    } catch (error) {
      await shared.abandon(scoped, fingerprint).catch(() => undefined);
      throw error;
    }
    // Answered only once recorded where every node reads it: a record that fails is an error (the create's session stays unannounced).
    const answer = await shared.complete(scoped, fingerprint, { status: route.status, body }, this.store.ttlMs);
    // Another node's create of this key was recorded first (it took this one's in-flight mark over): its answer is the key's.
    return answer.body === body ? body : replayed(answer);
  }

  private scopedKey(kind: IdempotentRouteKind, request: IdempotentRequest, key: string): string {
    if (kind === 'prompt') return idempotencyScope.prompt(request.params?.id ?? '', request[CLIENT_ID_REQUEST_KEY], key);
    // A create names its workspace by `cwd` (none: the primary); it has no guard, so the header is taken as sent. Its
    // principal scopes it: a key another principal guesses creates its own session.
    const cwd = (request.body as { cwd?: unknown } | undefined)?.cwd;
    const clientId = request.headers[this.clientIdHeader];
    const principal = principalOf(request)?.name;
    return idempotencyScope.session(
      principal,
      typeof cwd === 'string' ? cwd : '',
      typeof clientId === 'string' ? clientId : undefined,
      key,
    );
  }
}
