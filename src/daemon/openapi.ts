import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, getSchemaPath, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { ImagePromptBlockDto, PromptRequestDto, TextPromptBlockDto } from '../bridge/prompt.dto.js';
import { apiErrorExample } from '../common/api-errors.js';
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
 * `/health`), and their `401`; request bodies as their validation enforces
 * them, and the wait bound of this configuration.
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
  const unauthorized = {
    description: 'unauthorized: the bearer token is missing, malformed or wrong.',
    headers: {
      'WWW-Authenticate': { description: 'The scheme to authenticate with (RFC 6750).', schema: { type: 'string', example: 'Bearer' } },
    },
    content: {
      'application/json': {
        schema: { $ref: getSchemaPath(ErrorResponseDto) },
        examples: { unauthorized: { summary: 'unauthorized', value: apiErrorExample('unauthorized') } },
      },
    },
  };
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
      if (operation.security?.length === 0) continue;
      operation.responses['401'] ??= unauthorized;
    }
  }
  return document;
}
