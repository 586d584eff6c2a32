import type { INestApplicationContext } from '@nestjs/common';
import { DEFAULT_CLIENT_ID_HEADER } from '../client-id/client-id-options.js';
import { ERROR_CATALOGUE, type ApiErrorCode } from '../errors/error-catalogue.js';
import { documentErrorCodes } from '../errors/error-response.dto.js';
import { CLIENT_ID_PATTERN } from '../client-id/client-id-pattern.js';
import { TURNS_MODULE_OPTIONS, type TurnsModuleOptions } from './turns.module-definition.js';
import { TurnWaitService } from './wait/turn-wait.service.js';

/** An OpenAPI parameter, as far as this file reads and writes it. */
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Record<string, unknown>;
}

interface Operation {
  parameters?: Parameter[];
  responses?: Record<string, { content?: Record<string, { examples?: Record<string, unknown> }> }>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'] as const;

/** A header name as the docs write it: `x-qwen-client-id` → `X-Qwen-Client-Id`. */
export function headerAsWritten(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => dash + letter.toUpperCase());
}

/**
 * The client id header of the turn routes under these options: its name as
 * configured, required when `requireClientId` is.
 *
 * @internal
 */
export function clientIdHeaderParameter(options: Pick<TurnsModuleOptions, 'clientIdHeader' | 'requireClientId'>) {
  const required = options.requireClientId ?? false;
  return {
    name: options.clientIdHeader ?? headerAsWritten(DEFAULT_CLIENT_ID_HEADER),
    in: 'header' as const,
    required,
    description:
      'The client id the caller registered on the session. ' +
      (required ? 'Required: a request without one is refused' : 'Without one, the request is anonymous; one that is malformed') +
      ', or not registered on the session, is refused (400 invalid_client_id).',
    schema: { type: 'string' as const, pattern: CLIENT_ID_PATTERN.source },
  };
}

/** Every operation of a document, by path and method. */
function* operations(document: { paths: object }): Generator<Operation> {
  for (const item of Object.values(document.paths as Record<string, Record<string, Operation | undefined>>)) {
    for (const method of METHODS) if (item[method]) yield item[method];
  }
}

/**
 * Makes a host's own `TurnStatusRoute` routes read the module's options (header, wait bound) and cuts `ErrorCode` to
 * the codes the document answers; `TurnsModule`'s own routes need nothing (docs/mounting.md#your-openapi-document).
 *
 * @publicApi
 */
export function documentTurnRoutes<D extends { paths: object; components?: { schemas?: object } }>(
  app: INestApplicationContext,
  document: D,
): D {
  const header = clientIdHeaderParameter(app.get<TurnsModuleOptions>(TURNS_MODULE_OPTIONS, { strict: false }));
  const { maxWaitMs } = app.get(TurnWaitService, { strict: false });
  const answered = new Set<ApiErrorCode>();
  for (const operation of operations(document)) {
    const parameters = operation.parameters ?? [];
    operation.parameters = parameters.map((parameter) =>
      parameter.in === 'header' && parameter.name.toLowerCase() === DEFAULT_CLIENT_ID_HEADER ? header : parameter,
    );
    for (const parameter of parameters) {
      if (parameter.in === 'query' && parameter.name === 'waitMs') parameter.schema = { ...parameter.schema, maximum: maxWaitMs };
    }
    for (const response of Object.values(operation.responses ?? {})) {
      for (const code of Object.keys(response.content?.['application/json']?.examples ?? {})) {
        if (code in ERROR_CATALOGUE) answered.add(code as ApiErrorCode);
      }
    }
  }
  documentErrorCodes(document, answered);
  return document;
}
