import type { SessionClientLookup } from '../client-id/session-client-lookup.js';
import { rateLimitExceeded } from '../errors/api-errors.js';
import type { FrontRequest, FrontStage } from '../http/front-door.js';
import { principalOf } from '../http/request-principal.js';
import { CLIENT_ID_PATTERN } from '../client-id/client-id-pattern.js';
import { ClientKeyBound } from './client-key-bound.js';
import { anonymousKey, rateLimitKey } from './rate-limit-key.js';
import { rateLimitTier } from './rate-limit-tier.js';
import type { RateLimits } from './rate-limits.js';

/** Distinct client keys with a bucket of their own at once (the peer's bucket bound); past it, see {@link ClientKeyBound}. */
export const MAX_CLIENT_KEYS = 10_000;

/** What the rate-limit stage reads besides the request. */
export interface RateLimitStageOptions {
  /** Which client ids a live session was issued: the sessions registry, as `ClientIdGuard` asks it. */
  clients: SessionClientLookup;
  /** The client id header, lower-case. */
  header: string;
  windowMs: number;
  now?: () => number;
  /** Told when the buckets fail (the request then passes). */
  onError?: (error: unknown) => void;
}

/**
 * The client id of a request if the daemon issued it: registered on the live
 * session the path addresses. Any other id — minted by the caller, of another
 * session, on a path with no session — is not one.
 */
export function issuedClientId(request: FrontRequest, clients: SessionClientLookup, header: string): string | undefined {
  const raw = request.req.headers[header];
  const sessionId = request.sessionId;
  if (typeof raw !== 'string' || sessionId === undefined || !CLIENT_ID_PATTERN.test(raw)) return undefined;
  return clients.isClientRegistered(sessionId, raw) ? raw : undefined;
}

/**
 * The front door stage of the rate limits (docs/operating.md#rate-limits),
 * after the token check and the cluster router: each request that reaches
 * this node's routes draws once on its tier's budget — a held poll once, a
 * forwarded request on its owner only — keyed by its principal and issued
 * client id; over the budget it is answered `429 rate_limit_exceeded` here.
 */
export function rateLimitStage(limits: RateLimits, options: RateLimitStageOptions): FrontStage {
  const now = options.now ?? Date.now;
  const bound = new ClientKeyBound(MAX_CLIENT_KEYS, options.windowMs, now);
  return (request, next) => {
    const tier = rateLimitTier(request.req.method ?? 'GET', request.route?.template, request.path);
    if (tier === undefined) return next();
    const principal = principalOf(request.req)?.name;
    const clientId = issuedClientId(request, options.clients, options.header);
    const own = clientId === undefined ? undefined : rateLimitKey(principal, clientId);
    limits.consume(tier, own !== undefined && bound.admit(own) ? own : anonymousKey(principal)).then(
      (verdict) => {
        if (verdict.allowed) return next();
        // Answered here; what the request still sends is read and dropped.
        request.req.resume();
        request.sendError(rateLimitExceeded(tier, verdict.retryAfterMs, verdict.limit, now()));
      },
      (error: unknown) => {
        // Not reached with the insurance limiter; a bug in the buckets must not take the daemon down with it.
        options.onError?.(error);
        next();
      },
    );
  };
}
