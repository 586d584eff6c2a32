import { ApiProperty, ApiPropertyOptional, DECORATORS } from '../common/swagger.js';
import { ERROR_CATALOGUE, type AnyErrorDetails, type ApiErrorCode, type ErrorCatalogueEntry } from './error-catalogue.js';
import type { ErrorDetail } from './error-details.js';

// The details' fields, typed from the catalogue rather than written out again (their OpenAPI properties below).
const ErrorDetailFields = class {} as new () => AnyErrorDetails;

const CODES = Object.keys(ERROR_CATALOGUE) as ApiErrorCode[];

/**
 * Every error body: a message, a stable code, and details that depend on the
 * code (each declared by the code's catalogue entry).
 *
 * @publicApi
 */
export class ErrorResponseDto extends ErrorDetailFields {
  @ApiProperty({ description: 'Human-readable message.' })
  error!: string;

  @ApiProperty(codeProperty(CODES))
  code!: string;
}

function codeProperty(codes: readonly ApiErrorCode[]) {
  return {
    description: 'Stable, machine-readable code: one of the catalogue (docs/routes.md, Errors).',
    enum: [...codes],
    enumName: 'ErrorCode',
  };
}

type DetailProperty = { type: ErrorDetail['type']; description: string; example: string | number };

/**
 * The OpenAPI property of each detail the catalogue declares for `codes`
 * (all of them unless given): its type, an example, and per group of codes
 * what it says there.
 *
 * @internal exported for its spec
 */
export function errorDetailProperties(codes: readonly ApiErrorCode[] = CODES): Record<string, DetailProperty> {
  const byName = new Map<string, Array<[code: string, detail: ErrorDetail]>>();
  for (const code of codes) {
    const entry: ErrorCatalogueEntry = ERROR_CATALOGUE[code];
    for (const [name, detail] of Object.entries(entry.details ?? {})) byName.set(name, [...(byName.get(name) ?? []), [code, detail]]);
  }
  return Object.fromEntries(
    [...byName].map(([name, uses]) => {
      const codesBySaying = new Map<string, string[]>();
      for (const [code, detail] of uses) codesBySaying.set(detail.description, [...(codesBySaying.get(detail.description) ?? []), code]);
      const description = [...codesBySaying].map(([saying, codes]) => `${codes.join(', ')}: ${saying}.`).join(' ');
      return [name, { type: uses[0]![1].type, description, example: uses[0]![1].example }];
    }),
  );
}

for (const [name, property] of Object.entries(errorDetailProperties())) {
  ApiPropertyOptional(property)(ErrorResponseDto.prototype, name);
}

/**
 * Declares `ErrorResponseDto` with only `codes` (in catalogue order) and their details, as the next
 * `SwaggerModule.createDocument` reads it: what an app's routes answer. A TurnsModule calls it as its app is created
 * (src/turns/turn-routes.ts); in a process of several apps, the last created one's codes hold.
 *
 * @internal
 */
export function declareErrorCodes(codes: Iterable<ApiErrorCode>): void {
  const wanted = new Set(codes);
  const kept = CODES.filter((code) => wanted.has(code));
  const target = ErrorResponseDto.prototype;
  ApiProperty(codeProperty(kept))(target, 'code');
  const details = errorDetailProperties(kept);
  const listed = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, target) ?? []) as string[];
  // Swagger lists a class's properties as `:name`; a detail no kept code has leaves the list.
  const keep = (key: string) => ['error', 'code'].includes(key.slice(1)) || key.slice(1) in details;
  Reflect.defineMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, listed.filter(keep), target);
  for (const [name, property] of Object.entries(details)) ApiPropertyOptional(property)(target, name);
}

/** The parts of an OpenAPI document's schemas that {@link documentErrorCodes} rewrites. */
interface ErrorSchemas {
  ErrorCode?: { enum?: string[] };
  ErrorResponseDto?: { properties?: Record<string, unknown> };
}

/**
 * Narrows a document's `ErrorCode` enum and `ErrorResponseDto` details to
 * `codes` (in catalogue order): what its routes can answer, not every code
 * the package knows.
 *
 * @internal
 */
export function documentErrorCodes(document: { components?: { schemas?: object } }, codes: Iterable<ApiErrorCode>): void {
  const schemas = document.components?.schemas as ErrorSchemas | undefined;
  const properties = schemas?.ErrorResponseDto?.properties;
  if (!schemas?.ErrorCode || !properties) return;
  const wanted = new Set(codes);
  const kept = CODES.filter((code) => wanted.has(code));
  schemas.ErrorCode.enum = kept;
  const details = errorDetailProperties(kept);
  for (const name of Object.keys(properties)) if (name !== 'error' && name !== 'code') delete properties[name];
  Object.assign(properties, details);
}
