import { applyDecorators, createParamDecorator, SetMetadata, UseInterceptors, type ExecutionContext } from '@nestjs/common';
import { ApiHeader } from '../common/swagger.js';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from './idempotency-key.js';
import {
  IDEMPOTENCY_REQUEST_KEY,
  IDEMPOTENT_ROUTE,
  IdempotencyInterceptor,
  type AdmissionIdempotency,
  type IdempotentRouteKind,
} from './idempotency.interceptor.js';

/** The answer header of a replay, for the route's success response in OpenAPI. */
export const IDEMPOTENT_REPLAYED_RESPONSE_HEADERS = {
  [IDEMPOTENT_REPLAYED_HEADER]: {
    description: '`true` when this is the first answer to the `Idempotency-Key`, given again (nothing was admitted).',
    schema: { type: 'string' as const, enum: ['true'] },
  },
};

/** The key's error answers, for the route's `@ApiErrorResponses` (one list per route, so statuses merge). */
export const IDEMPOTENCY_ERRORS = ['invalid_idempotency_key', 'idempotency_key_in_flight', 'idempotency_key_reused'] as const;

/**
 * Makes a POST route retry-safe with `Idempotency-Key` (docs/idempotency.md) and
 * documents the header. `status` is the route's success status: a replay
 * answers with it too.
 */
export function IdempotentRoute(kind: IdempotentRouteKind, status: number): MethodDecorator {
  return applyDecorators(
    SetMetadata(IDEMPOTENT_ROUTE, { kind, status }),
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: IDEMPOTENCY_KEY_HEADER,
      required: false,
      description:
        'Retry safety: a repeat with the same key and body gets the first answer again and admits nothing. ' +
        `1–255 visible ASCII characters, scoped per ${kind === 'prompt' ? 'session' : 'workspace'} and client id.`,
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~]{1,255}$' },
    }),
  );
}

/** The key of a first request under `Idempotency-Key`, or `undefined` without one. */
export const AdmissionKey = createParamDecorator((_data: unknown, context: ExecutionContext): AdmissionIdempotency | undefined => {
  return context.switchToHttp().getRequest<Record<string, AdmissionIdempotency | undefined>>()[IDEMPOTENCY_REQUEST_KEY];
});
