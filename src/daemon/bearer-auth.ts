import { apiError } from '../errors/api-errors.js';
import type { FrontStage } from '../http/front-door.js';
import type { BearerToken } from './bearer-token.js';

/**
 * The one place the daemon checks its bearer token, in front of everything it
 * serves (routes, Swagger UI, `/metrics` on its own port): a public route
 * (`@Public()`) passes, any other request, one on a path no route has among
 * them (a framework may still route it, say by case or a trailing slash),
 * needs `Authorization: Bearer <token>`; otherwise `401 unauthorized`.
 */
export function bearerAuth(token: BearerToken): FrontStage {
  const denied = apiError('unauthorized');
  return (request, next) => {
    if (request.route?.public || token.accepts(request.req.headers.authorization)) return next();
    // The request is answered here; what it still sends is read and dropped.
    request.req.resume();
    request.sendError(denied);
  };
}
