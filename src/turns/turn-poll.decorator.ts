import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { CLIENT_ID_REQUEST_KEY, type GuardedRequest } from '../client-id/client-id.guard.js';

/** What a turn request asks of its answer, as sent: the wait (parsed by the controller against `maxWaitMs`) and the ETag it has. */
export interface TurnPollParams {
  waitMs: unknown;
  /** `?activity=`: wake a held request on a running turn's activity too. */
  activity?: unknown;
  prefer?: string;
  ifNoneMatch?: string;
  /** The client id `ClientIdGuard` accepted: the reader that sees its own id where it is the originator. */
  clientId?: string;
}

/** `?waitMs=`, `Prefer`, `If-None-Match` and the checked client id of a turn request, on Express and Fastify alike. */
export const TurnPoll = createParamDecorator((_data: unknown, context: ExecutionContext): TurnPollParams => {
  const request = context.switchToHttp().getRequest<GuardedRequest & { headers: Record<string, string | undefined> }>();
  return {
    waitMs: request.query?.waitMs,
    activity: request.query?.activity,
    prefer: request.headers.prefer,
    ifNoneMatch: request.headers['if-none-match'],
    clientId: request[CLIENT_ID_REQUEST_KEY],
  };
});
