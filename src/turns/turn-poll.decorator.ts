import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/** What a turn request asks of its answer, as sent: the wait (parsed by the controller against `maxWaitMs`) and the ETag it has. */
export interface TurnPollParams {
  waitMs: unknown;
  /** `?activity=`: wake a held request on a running turn's activity too. */
  activity?: unknown;
  prefer?: string;
  ifNoneMatch?: string;
}

/** `?waitMs=`, `Prefer` and `If-None-Match` of a turn request, on Express and Fastify alike. */
export const TurnPoll = createParamDecorator((_data: unknown, context: ExecutionContext): TurnPollParams => {
  const request = context.switchToHttp().getRequest<{ query?: Record<string, unknown>; headers: Record<string, string | undefined> }>();
  return {
    waitMs: request.query?.waitMs,
    activity: request.query?.activity,
    prefer: request.headers.prefer,
    ifNoneMatch: request.headers['if-none-match'],
  };
});
