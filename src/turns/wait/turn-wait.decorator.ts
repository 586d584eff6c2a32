import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/** What a turn request says about waiting, as sent (parsed by the controller against `maxWaitMs`). */
export interface TurnWaitParams {
  waitMs: unknown;
  prefer?: string;
  ifNoneMatch?: string;
  /** The adapter's response, to set `Preference-Applied` and to notice a client going away. */
  response: unknown;
}

/** `?waitMs=`, `Prefer`, `If-None-Match` and the response of a turn request, on Express and Fastify alike. */
export const TurnWait = createParamDecorator((_data: unknown, context: ExecutionContext): TurnWaitParams => {
  const http = context.switchToHttp();
  const request = http.getRequest<{ query?: Record<string, unknown>; headers: Record<string, string | undefined> }>();
  return {
    waitMs: request.query?.waitMs,
    prefer: request.headers.prefer,
    ifNoneMatch: request.headers['if-none-match'],
    response: http.getResponse(),
  };
});
