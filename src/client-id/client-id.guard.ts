import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { clientIdRequired, malformedClientId, sessionNotFound, unregisteredClientId } from '../errors/api-errors.js';
import { CLIENT_ID_PATTERN } from './client-id-pattern.js';
import { ClientIdOptions } from './client-id-options.js';
import { SessionClientLookup } from './session-client-lookup.js';

/**
 * Where the guard leaves the checked client id for handlers (`@ClientId()`).
 *
 * @publicApi
 */
export const CLIENT_ID_REQUEST_KEY = 'turnsClientId';

/**
 * The parts of an Express or Fastify request the guard reads.
 *
 * @publicApi
 */
export interface GuardedRequest {
  headers: Record<string, string | string[] | undefined>;
  params?: Record<string, string | undefined>;
  query?: Record<string, unknown>;
  [CLIENT_ID_REQUEST_KEY]?: string;
}

/**
 * Authorizes a request for one session: the session live (and the principal's), then the client id well formed and
 * registered on it (docs/decisions.md#the-client-id-guards-order). Each step is a protected method a host may override.
 *
 * @publicApi
 */
@Injectable()
export class ClientIdGuard implements CanActivate {
  constructor(
    protected readonly sessions: SessionClientLookup,
    protected readonly options: ClientIdOptions,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<GuardedRequest>();
    const sessionId = this.getSessionId(request);
    this.assertSessionLive(sessionId);
    this.assertSessionOf(sessionId, request);
    const clientId = this.getClientId(request);
    if (clientId === undefined) {
      if (this.options.requireClientId) {
        throw clientIdRequired();
      }
      return true;
    }
    this.assertWellFormed(clientId);
    this.assertRegistered(sessionId, clientId);
    request[CLIENT_ID_REQUEST_KEY] = clientId;
    return true;
  }

  protected getSessionId(request: GuardedRequest): string {
    return request.params?.id ?? '';
  }

  /** The header's value, or `undefined` when absent or empty (anonymous). */
  protected getClientId(request: GuardedRequest): string | undefined {
    const raw = request.headers[this.options.header.toLowerCase()];
    const value = Array.isArray(raw) ? raw.join(',') : raw;
    return value === undefined || value === '' ? undefined : value;
  }

  protected assertSessionLive(sessionId: string): void {
    if (!this.sessions.hasSession(sessionId)) throw sessionNotFound(sessionId);
  }

  /**
   * With a `principal` option and a port that answers `isSessionOf`: a
   * session that is not the request's principal's is not found, exactly as
   * one that does not exist.
   */
  protected assertSessionOf(sessionId: string, request: GuardedRequest): void {
    const read = this.options.principal;
    if (read === undefined || this.sessions.isSessionOf === undefined) return;
    if (!this.sessions.isSessionOf(sessionId, this.getPrincipal(request, read))) throw sessionNotFound(sessionId);
  }

  /** The principal the host's guard decided, as the `principal` option reads it (from the request as its platform gives it). */
  protected getPrincipal(request: GuardedRequest, read: (request: never) => string | undefined): string | undefined {
    return read(request as never);
  }

  protected assertWellFormed(clientId: string): void {
    if (!CLIENT_ID_PATTERN.test(clientId)) {
      throw malformedClientId();
    }
  }

  protected assertRegistered(sessionId: string, clientId: string): void {
    if (!this.sessions.isClientRegistered(sessionId, clientId)) {
      throw unregisteredClientId(sessionId, clientId);
    }
  }
}
