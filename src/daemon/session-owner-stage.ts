import { apiError, sessionNotFound } from '../errors/api-errors.js';
import type { FrontStage } from '../http/front-door.js';
import { principalOf, type Principal } from '../http/request-principal.js';
import { sessionAddressedBy } from '../http/session-path.js';

/** Where the stage asks whether a live session is the principal's (the runtime's `SessionRegistry`). */
export interface SessionAccess {
  mayAccess(sessionId: string, principal: Principal | undefined): boolean;
}

/**
 * The one check every route of a session passes: a session the principal may not see answers as one that does not
 * exist (docs/security.md#ownership), its path read as the frameworks route it.
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
