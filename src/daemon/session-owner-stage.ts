import { apiError, sessionNotFound } from '../errors/api-errors.js';
import type { FrontStage } from '../http/front-door.js';
import { principalOf, type Principal } from '../http/request-principal.js';
import { sessionAddressedBy } from '../http/session-path.js';

/** Where the stage asks whether a live session is the principal's (the runtime's `SessionRegistry`). */
export interface SessionAccess {
  mayAccess(sessionId: string, principal: Principal | undefined): boolean;
}

/**
 * The one check every route of a session passes (docs/security.md#ownership):
 * a session live here that the request's principal may not see answers every
 * route exactly as a session that does not exist — `404 session_not_found`,
 * and on the unscoped `POST /permission/:requestId` the `404
 * permission_not_found` a request of no live session gets. Stands after the
 * token check and the cluster router, so it runs where the session lives,
 * with the principal the forwarded request proved there. The session is
 * read as the frameworks route the path (any case, percent-decoded), so no
 * spelling of a path reaches a route this check did not see.
 */
export function sessionOwnerCheck(sessions: SessionAccess): FrontStage {
  return (request, next) => {
    const addressed = sessionAddressedBy(request.path);
    if (addressed === undefined || sessions.mayAccess(addressed.sessionId, principalOf(request.req))) return next();
    request.req.resume();
    const { sessionId, requestId } = addressed;
    // The unscoped answer route: as the broker answers a request of no live session.
    request.sendError(requestId === undefined ? sessionNotFound(sessionId) : apiError('permission_not_found', { requestId }));
  };
}
