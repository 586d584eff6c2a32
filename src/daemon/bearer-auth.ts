import { apiError } from '../errors/api-errors.js';
import type { FrontStage } from '../http/front-door.js';
import { setPrincipal, type Principal } from '../http/request-principal.js';

/** What the token check asks: the principal an `Authorization` header proves (see `DaemonTokens`). */
export interface TokenCheck {
  authenticate(authorization: unknown): Principal | undefined;
}

/**
 * The one place the daemon checks a bearer token, in front of everything it
 * serves (routes, Swagger UI, `/metrics` on its own port): a public route
 * (`@Public()`) passes, any other request, one on a path no route has among
 * them (a framework may still route it, say by case or a trailing slash),
 * needs `Authorization: Bearer <token>` of a principal, recorded on the
 * request (`principalOf`); otherwise `401 unauthorized`, the same for a
 * missing, malformed or wrong token.
 */
export function bearerAuth(tokens: TokenCheck): FrontStage {
  const denied = apiError('unauthorized');
  return (request, next) => {
    if (request.route?.public) return next();
    const principal = tokens.authenticate(request.req.headers.authorization);
    if (principal) {
      setPrincipal(request.req, principal);
      return next();
    }
    // The request is answered here; what it still sends is read and dropped.
    request.req.resume();
    request.sendError(denied);
  };
}
