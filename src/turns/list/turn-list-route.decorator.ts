import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiHeader, ApiOkResponse, ApiOperation, ApiQuery, ApiResponse, getSchemaPath } from '../../common/swagger.js';
import { ApiErrorResponses } from '../../errors/api-error-responses.decorator.js';
import { TURN_STATES } from '../rules/turn-state.js';
import { TURN_STATUS_DTOS } from '../turn-status.dto.js';
import { SessionTurnDocs, type TurnRouteDocs } from '../turn-status-route.decorator.js';
import { TURN_LIST_LIMITS } from './turn-page.js';

const SESSION = '5c1d2a8e-7f7b-4a44-9a57-1f2e3d4c5b6a';
const EXAMPLE = {
  turns: [
    {
      sessionId: SESSION,
      promptId: '0d6f4c1b-2a39-4b8e-9d51-2f0e6c1e3c1d',
      promptText: 'and now?',
      state: 'running',
      queuedAt: 1796071095000,
      startedAt: 1796071095002,
      activity: { events: 14, toolCalls: 2, lastEventAt: 1796071101250, lastTool: 'Read README.md' },
    },
    {
      sessionId: SESSION,
      promptId: 'caa0b1c2-d3e4-4f50-8a6b-7c8d9e0f1a2b',
      promptText: 'hello',
      state: 'completed',
      queuedAt: 1796071090048,
      startedAt: 1796071090050,
      endedAt: 1796071090057,
      stopReason: 'end_turn',
      resultText: 'echo: hello',
    },
  ],
  nextPageToken: 'WzEsMTc5NjA3MTA5MDA0OCwiY2FhMGIxYzItZDNlNC00ZjUwLThhNmItN2M4ZDllMGYxYTJiIiwiIl0',
};

/**
 * The OpenAPI description of `GET /session/:id/turns` (answered with the turn
 * routes' conventions: `Cache-Control: no-cache`, strong `ETag` → 304) under
 * one module's docs options: the page, its query and its errors.
 */
export function TurnListDocs(docs: TurnRouteDocs): MethodDecorator {
  const models = Object.entries(TURN_STATUS_DTOS).filter(([state]) => state !== 'idle');
  return applyDecorators(
    SessionTurnDocs(docs),
    ApiOperation({
      summary: "The session's turns, newest first, each as GET /session/{id}/turns/{promptId} answers it now",
      description:
        'From the same bounded sources as the exact route (live queue, overlay, the transcript scan window): a turn beyond them is not listed. Answers at once (no wait).',
      operationId: 'listTurns',
    }),
    ApiHeader({
      name: 'If-None-Match',
      required: false,
      description: 'ETag of a page seen before: 304 while it is still the answer.',
      schema: { type: 'string' },
    }),
    ApiQuery({
      name: 'state',
      required: false,
      description: `Comma list of states to keep (${TURN_STATES.join(', ')}).`,
      schema: { type: 'string', example: 'completed,error' },
    }),
    ApiQuery({
      name: 'limit',
      required: false,
      description: 'Turns per page.',
      schema: { type: 'integer', minimum: 1, maximum: TURN_LIST_LIMITS.maxLimit, default: TURN_LIST_LIMITS.defaultLimit },
    }),
    ApiQuery({
      name: 'pageToken',
      required: false,
      description: 'nextPageToken of the previous page, with the same state filter; valid while the session lives.',
      schema: { type: 'string' },
    }),
    ApiExtraModels(...models.map(([, model]) => model)),
    ApiOkResponse({
      description: 'One page of turns.',
      schema: {
        type: 'object',
        required: ['turns'],
        properties: {
          turns: {
            type: 'array',
            items: {
              oneOf: models.map(([, model]) => ({ $ref: getSchemaPath(model) })),
              discriminator: {
                propertyName: 'state',
                mapping: Object.fromEntries(models.map(([state, model]) => [state, getSchemaPath(model)])),
              },
            },
          },
          nextPageToken: { type: 'string', description: 'Present when older turns follow.' },
        },
      },
      headers: {
        ETag: { description: 'Strong validator of the exact body.', schema: { type: 'string' } },
        'Cache-Control': { description: 'Always `no-cache`.', schema: { type: 'string', enum: ['no-cache'] } },
      },
      examples: { page: { summary: 'a running and a completed turn', value: EXAMPLE } },
    }),
    ApiResponse({ status: 304, description: 'If-None-Match matched the current ETag.', headers: { ETag: { schema: { type: 'string' } } } }),
    ApiErrorResponses(
      'invalid_client_id',
      'invalid_turn_state',
      'invalid_limit',
      'invalid_page_token',
      'session_not_found',
      'invalid_transcript_cursor',
      'transcript_snapshot_unavailable',
      'transcript_page_too_large',
      'transcript_too_large',
    ),
  );
}
