import { Injectable, type ExecutionContext } from '@nestjs/common';
import { ClientIdGuard, type GuardedRequest } from '../client-id/client-id.guard.js';
import { apiError } from '../errors/api-errors.js';
import { sessionOfRequestId } from '../wire/permission-request-id.js';

/**
 * {@link ClientIdGuard} for the peer's unscoped `POST /permission/:requestId`:
 * the session is the one the request id names; an id that names no live
 * session is `404 permission_not_found`, as an unknown request is.
 */
@Injectable()
export class PermissionRequestGuard extends ClientIdGuard {
  override canActivate(context: ExecutionContext): boolean {
    const requestId = context.switchToHttp().getRequest<GuardedRequest>().params?.requestId ?? '';
    const sessionId = sessionOfRequestId(requestId);
    if (sessionId === undefined || !this.sessions.hasSession(sessionId)) throw apiError('permission_not_found', { requestId });
    return super.canActivate(context);
  }

  protected override getSessionId(request: GuardedRequest): string {
    return sessionOfRequestId(request.params?.requestId ?? '') ?? '';
  }
}
