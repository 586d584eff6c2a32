import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { CLIENT_ID_REQUEST_KEY } from './client-id.guard.js';

/**
 * The client id that {@link ClientIdGuard} accepted, or `undefined` when anonymous.
 *
 * @publicApi
 */
export const ClientId = createParamDecorator((_data: unknown, context: ExecutionContext): string | undefined => {
  const request = context.switchToHttp().getRequest<Record<string, unknown>>();
  const value = request[CLIENT_ID_REQUEST_KEY];
  return typeof value === 'string' ? value : undefined;
});
