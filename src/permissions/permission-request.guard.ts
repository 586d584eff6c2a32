import { Injectable, type ExecutionContext } from '@nestjs/common';
import { ClientIdGuard, type GuardedRequest } from '../client-id/client-id.guard.js';
import { sessionOfRequestId } from '../wire/permission-request-id.js';

/**
 * {@link ClientIdGuard} for the peer's unscoped `POST /permission/:requestId`:
 * the session is the one the request id names. An id that names no live
 * session passes with no client check: the broker answers no request of a
 * session that is not live (one being torn down still holds its requests
 * until the close cancels them), so the answer is `404 permission_not_found`
 * (after the body's own checks).
 */
@Injectable()
export class PermissionRequestGuard extends ClientIdGuard {
  override canActivate(context: ExecutionContext): boolean {
    const sessionId = this.getSessionId(context.switchToHttp().getRequest<GuardedRequest>());
    return !this.sessions.hasSession(sessionId) || super.canActivate(context);
  }

  protected override getSessionId(request: GuardedRequest): string {
    return sessionOfRequestId(request.params?.requestId ?? '') ?? '';
  }
}
