import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, getSchemaPath, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { ImagePromptBlockDto, PromptRequestDto, TextPromptBlockDto } from '../bridge/prompt.dto.js';
import { API_ERRORS, apiErrorExample, type ApiErrorCode } from '../common/api-errors.js';
import { ErrorResponseDto } from '../common/error-response.dto.js';
import { CreateSessionDto, RewindDto } from '../sessions/session.dto.js';
import { TurnWaitService } from '../turns/wait/turn-wait.service.js';
import { applyValidationSchemas } from './validation-schema.js';

/** Every request body the daemon validates; their schemas come from that validation. */
const REQUEST_DTOS = [CreateSessionDto, PromptRequestDto, TextPromptBlockDto, ImagePromptBlockDto, RewindDto];

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'] as const;

/**
 * The daemon's OpenAPI document: every route, the bearer scheme required
 * everywhere but on the operations that opt out (`security: []`, i.e.
 * `/health`), and their `401`; the browser walls' `403` on every operation
 * and `415` on every one that may carry a body; request bodies as their
 * validation enforces them, and the wait bound of this configuration.
 *
 * @publicApi
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('nest-turn-status daemon')
    .setDescription('Sessions, prompt admission, events, and polling of turn status by promptId.')
    .setVersion('1')
    .setLicense('MIT', 'https://opensource.org/license/mit')
    .addServer('http://127.0.0.1:4170', 'The daemon on its default address')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'TURNS_TOKEN, when the daemon is started with one.' }, 'bearer')
    .addSecurityRequirements('bearer')
    .build();
  const document = SwaggerModule.createDocument(app, config);
  const unauthorized = errorResponse('unauthorized: the bearer token is missing, malformed or wrong.', 'unauthorized');
  const forbidden = errorResponse(
    'origin_forbidden: a web page of an origin not in TURNS_ALLOW_ORIGINS, or a Host the daemon does not answer to (SPEC §15).',
    'origin_forbidden',
  );
  const unsupported = errorResponse('unsupported_media_type: a body that is not application/json.', 'unsupported_media_type');
  applyValidationSchemas(document, REQUEST_DTOS);
  const maxWaitMs = app.get(TurnWaitService, { strict: false }).maxWaitMs;
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      // The wait bound is the running daemon's (TURNS_MAX_WAIT_MS), not a constant.
      for (const parameter of operation.parameters ?? []) {
        if ('name' in parameter && parameter.name === 'waitMs' && parameter.schema) Object.assign(parameter.schema, { maximum: maxWaitMs });
      }
      operation.responses['403'] ??= forbidden;
      if (method === 'post' || method === 'delete') operation.responses['415'] ??= unsupported;
      if (operation.security?.length === 0) continue;
      operation.responses['401'] ??= unauthorized;
    }
  }
  return document;
}

/** A documented error answer of `code`, with its catalogued example and headers. */
function errorResponse(description: string, code: ApiErrorCode) {
  const headers: Record<string, string> = (API_ERRORS[code] as { headers?: Record<string, string> }).headers ?? {};
  return {
    description,
    headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, { schema: { type: 'string', example: value } }])),
    content: {
      'application/json': {
        schema: { $ref: getSchemaPath(ErrorResponseDto) },
        examples: { [code]: { summary: code, value: apiErrorExample(code) } },
      },
    },
  };
}
