import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, getSchemaPath, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { ImagePromptBlockDto, PromptRequestDto, TextPromptBlockDto } from '../prompts/prompt.dto.js';
import { ERROR_CATALOGUE, apiErrorExample, type ApiErrorCode, type ErrorCatalogueEntry } from '../errors/api-errors.js';
import { documentErrorCodes, ErrorResponseDto } from '../errors/error-response.dto.js';
import { CreateSessionDto, RewindDto } from '../sessions/session.dto.js';
import { clientIdHeaderParameter } from '../turns/turns-openapi.js';
import { TURNS_MODULE_OPTIONS, type TurnsModuleOptions } from '../turns/turns.module-definition.js';
import { rateLimitTier } from '../rate-limit/rate-limit-tier.js';
import { applyValidationSchemas } from './validation-schema.js';

/** Every request body the daemon validates; their schemas come from that validation. */
const REQUEST_DTOS = [CreateSessionDto, PromptRequestDto, TextPromptBlockDto, ImagePromptBlockDto, RewindDto];

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'] as const;

type ServerObject = NonNullable<OpenAPIObject['servers']>[number];
interface ParameterObject {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: object;
}

/** @publicApi */
export interface OpenApiDocumentOptions {
  /** Where generated clients and Swagger UI send requests. @default [{ url: '/' }]: the daemon that serves the document */
  servers?: ServerObject[];
}

/**
 * The daemon's OpenAPI document: the turn routes as `TurnsModule` documents them, and on top every route of the
 * daemon with what its front door answers (docs/decisions.md#the-daemons-openapi-document).
 *
 * @publicApi
 */
export function buildOpenApiDocument(app: INestApplication, options: OpenApiDocumentOptions = {}): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('nest-turn-status daemon')
    .setDescription('Sessions, prompt admission, events, and polling of turn status by promptId.')
    .setVersion('1')
    .setLicense('MIT', 'https://opensource.org/license/mit')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'TURNS_TOKEN (an opaque token), when the daemon is started with one.' },
      'bearer',
    )
    .addSecurityRequirements('bearer')
    .build();
  config.servers = options.servers ?? [{ url: '/', description: 'The daemon serving this document' }];
  // The token is opaque: no JWT claim (Nest's builder adds one by default).
  delete (config.components!.securitySchemes!.bearer as { bearerFormat?: string }).bearerFormat;
  const document = SwaggerModule.createDocument(app, config);
  const clientId = {
    ...clientIdHeaderParameter(app.get<TurnsModuleOptions>(TURNS_MODULE_OPTIONS, { strict: false })),
    description: 'Client id issued by POST /session (or by load or resume).',
  };
  const unauthorized = errorResponse('unauthorized: the bearer token is missing, malformed or wrong.', 'unauthorized');
  const forbidden = errorResponse(
    'origin_forbidden: a web page of an origin not in TURNS_ALLOW_ORIGINS, or a Host the daemon does not answer to (docs/security.md).',
    'origin_forbidden',
  );
  const rateLimited = rateLimitedResponse();
  const unsupported = errorResponse('unsupported_media_type: a body that is not application/json.', 'unsupported_media_type');
  applyValidationSchemas(document, REQUEST_DTOS);
  documentErrorCodes(document, Object.keys(ERROR_CATALOGUE) as ApiErrorCode[]);
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const takesClientId = (path.startsWith('/session/{id}') && !/\/(?:load|resume)$/.test(path)) || path.startsWith('/permission/');
      const parameters = (operation.parameters ??= []) as ParameterObject[];
      if (takesClientId) {
        // The turn routes declare it already (as any host's do); the daemon says where its ids come from.
        const declared = parameters.findIndex((p) => p.in === 'header' && p.name === clientId.name);
        parameters.splice(declared < 0 ? parameters.length : declared, declared < 0 ? 0 : 1, clientId);
      }
      operation.responses['403'] ??= forbidden;
      if (rateLimitTier(method.toUpperCase(), path.replace(/\{([^}]+)\}/g, ':$1'), path)) operation.responses['429'] ??= rateLimited;
      if (method === 'post' || method === 'delete') operation.responses['415'] ??= unsupported;
      if (operation.security?.length === 0) continue;
      operation.responses['401'] ??= unauthorized;
    }
  }
  return document;
}

/** The rate limits' `429` (docs/operating.md#rate-limits), with the headers each one carries. */
function rateLimitedResponse() {
  const integer = (description: string) => ({ description, schema: { type: 'integer' } });
  const response = errorResponse(
    "rate_limit_exceeded: the caller spent this route's budget (tier prompt, mutation or read) for the window; only with --rate-limit.",
    'rate_limit_exceeded',
  );
  return {
    ...response,
    headers: {
      'Retry-After': integer('Seconds until the budget has room again.'),
      'X-RateLimit-Limit': integer("The tier's budget per window."),
      ...response.headers,
      'X-RateLimit-Reset': integer('When the budget has room again, in epoch seconds.'),
    },
  };
}

/** A documented error answer of `code`, with its catalogued example and headers. */
function errorResponse(description: string, code: ApiErrorCode) {
  const headers = (ERROR_CATALOGUE[code] as ErrorCatalogueEntry).headers ?? {};
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
