import { applyDecorators, Get, UseFilters, UseGuards } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiResponse,
  getSchemaPath,
} from '../common/swagger.js';
import { ClientIdGuard } from '../client-id/client-id.guard.js';
import { ApiErrorResponses } from '../errors/api-error-responses.decorator.js';
import { ApiExceptionFilter } from '../errors/api-exception.filter.js';
import type { ApiErrorCode } from '../errors/api-errors.js';
import { TURN_STATUS_DTOS } from './turn-status.dto.js';
import { clientIdHeaderParameter } from './turns-openapi.js';

const SESSION = '5c1d2a8e-7f7b-4a44-9a57-1f2e3d4c5b6a';
const PROMPT = 'caa0b1c2-d3e4-4f50-8a6b-7c8d9e0f1a2b';
const prompt = { sessionId: SESSION, promptId: PROMPT, promptText: 'hello' };

/** One correct example per state. */
const EXAMPLES = {
  idle: { sessionId: SESSION, state: 'idle' },
  queued: { ...prompt, state: 'queued', queuedAt: 1796071090048 },
  running: { ...prompt, state: 'running', queuedAt: 1796071090048, startedAt: 1796071090050 },
  completed: {
    ...prompt,
    state: 'completed',
    queuedAt: 1796071090048,
    startedAt: 1796071090050,
    endedAt: 1796071090057,
    stopReason: 'end_turn',
    resultText: 'echo: hello',
  },
  cancelled: { ...prompt, state: 'cancelled', queuedAt: 1796071090048, endedAt: 1796071090052, stopReason: 'cancelled' },
  error: {
    ...prompt,
    state: 'error',
    queuedAt: 1796071090048,
    startedAt: 1796071090050,
    endedAt: 1796071120050,
    error: { message: 'Prompt deadline exceeded', code: 'prompt_deadline_exceeded' },
  },
};

const ETAG = { description: 'Strong validator of the exact body; send it back as If-None-Match.', schema: { type: 'string' as const } };
const CACHE_CONTROL = { description: 'Always `no-cache`.', schema: { type: 'string' as const, enum: ['no-cache'] } };
const PREFERENCE_APPLIED = {
  description: 'Echoes the `wait=S` applied, when the wait came from `Prefer`.',
  schema: { type: 'string' as const },
};
const RETRY_AFTER = { description: 'Seconds before polling again; present while queued or running.', schema: { type: 'integer' as const } };

/**
 * How one TurnsModule's routes are documented: its client id header (name, required) and its wait bound.
 *
 * @internal
 */
export interface TurnRouteDocs {
  clientIdHeader: ReturnType<typeof clientIdHeaderParameter>;
  maxWaitMs?: number;
}

/** As the default options read: a host's own route made with {@link TurnStatusRoute}. */
const DEFAULT_DOCS: TurnRouteDocs = { clientIdHeader: clientIdHeaderParameter({}) };

/** What every route under `session/:id/turns` does: the GET, the session and client-id check, the error filter. @internal */
export function SessionTurnHandling(path: string): MethodDecorator {
  return applyDecorators(Get(path), UseGuards(ClientIdGuard), UseFilters(ApiExceptionFilter));
}

/** What every route under `session/:id/turns` documents: the session and this module's client id header. @internal */
export function SessionTurnDocs(docs: TurnRouteDocs): MethodDecorator {
  return applyDecorators(ApiParam({ name: 'id', description: 'Session id.', schema: { type: 'string' } }), ApiHeader(docs.clientIdHeader));
}

/** A turn status route's own words: what {@link TurnStatusRoute} takes. @internal */
export interface TurnStatusRouteText {
  path: string;
  summary: string;
  errors: ApiErrorCode[];
  operationId?: string;
  description?: string;
}

/**
 * One turn status route: GET, guarded by {@link ClientIdGuard}, with the turn routes' HTTP conventions
 * (docs/turn-routes.md) and OpenAPI description; a host's own route reads the default options
 * (docs/mounting.md#your-openapi-document).
 *
 * @publicApi
 */
export function TurnStatusRoute(
  path: string,
  summary: string,
  errors: ApiErrorCode[],
  operationId?: string,
  description?: string,
): MethodDecorator {
  return applyDecorators(SessionTurnHandling(path), TurnStatusDocs({ path, summary, errors, operationId, description }, DEFAULT_DOCS));
}

/** The OpenAPI description of one turn status route under these docs options. @internal */
export function TurnStatusDocs(route: TurnStatusRouteText, docs: TurnRouteDocs): MethodDecorator {
  const { summary, operationId, description } = route;
  const models = Object.values(TURN_STATUS_DTOS);
  const maximum = docs.maxWaitMs === undefined ? {} : { maximum: docs.maxWaitMs };
  return applyDecorators(
    SessionTurnDocs(docs),
    ApiOperation({ summary, operationId, ...(description !== undefined && { description }) }),
    ApiHeader({
      name: 'If-None-Match',
      required: false,
      description: 'ETag of a status seen before: 304 while it is still the answer; with a wait, held until the answer changes.',
      schema: { type: 'string' },
    }),
    ApiQuery({
      name: 'waitMs',
      required: false,
      description:
        "Hold the request up to this many ms (at most the server's longest wait, this parameter's maximum): until the status is not queued/running, or — with If-None-Match — until its ETag changes. 0 or absent answers at once.",
      schema: { type: 'integer', minimum: 0, ...maximum },
    }),
    ApiHeader({
      name: 'Prefer',
      required: false,
      description:
        "RFC 7240 `wait=S` (seconds, capped at the server's longest wait); `wait=S; activity` as `?activity=true`. waitMs wins when both are given.",
      schema: { type: 'string', example: 'wait=30' },
    }),
    ApiQuery({
      name: 'activity',
      required: false,
      description: "With a wait, a running turn's activity wakes the request too, not only a transition.",
      schema: { type: 'boolean' },
    }),
    ApiExtraModels(...models),
    ApiOkResponse({
      description: 'The turn status.',
      schema: {
        oneOf: models.map((model) => ({ $ref: getSchemaPath(model) })),
        discriminator: {
          propertyName: 'state',
          mapping: Object.fromEntries(Object.entries(TURN_STATUS_DTOS).map(([state, model]) => [state, getSchemaPath(model)])),
        },
      },
      headers: { ETag: ETAG, 'Cache-Control': CACHE_CONTROL, 'Retry-After': RETRY_AFTER, 'Preference-Applied': PREFERENCE_APPLIED },
      examples: Object.fromEntries(Object.entries(EXAMPLES).map(([state, value]) => [state, { summary: state, value }])),
    }),
    ApiResponse({
      status: 304,
      description: 'If-None-Match matched the current ETag (at once, or when the wait ran out).',
      headers: { ETag: ETAG },
    }),
    ApiErrorResponses(
      'invalid_client_id',
      'invalid_wait_ms',
      'invalid_activity',
      'too_many_waiters',
      'shutting_down',
      ...route.errors,
      'transcript_snapshot_unavailable',
      'transcript_page_too_large',
      'transcript_too_large',
    ),
  );
}
