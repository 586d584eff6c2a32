import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { principalOf } from './request-principal.js';

/**
 * The handler's parameter gets the principal the request proved
 * (`principalOf`), `undefined` when none.
 */
export const RequestPrincipal = createParamDecorator((_: unknown, context: ExecutionContext) =>
  principalOf(context.switchToHttp().getRequest<object>()),
);
