import { ApiProperty, ApiPropertyOptional } from '../common/swagger.js';
import { ERROR_CATALOGUE, type AnyErrorDetails, type ErrorCatalogueEntry } from './error-catalogue.js';
import type { ErrorDetail } from './error-details.js';

// The details' fields, typed from the catalogue rather than written out again (their OpenAPI properties below).
const ErrorDetailFields = class {} as new () => AnyErrorDetails;

/**
 * Every error body: a message, a stable code, and details that depend on the
 * code (each declared by the code's catalogue entry).
 *
 * @publicApi
 */
export class ErrorResponseDto extends ErrorDetailFields {
  @ApiProperty({ description: 'Human-readable message.' })
  error!: string;

  @ApiProperty({
    description: 'Stable, machine-readable code: one of the catalogue (docs/routes.md, Errors).',
    enum: Object.keys(ERROR_CATALOGUE),
    enumName: 'ErrorCode',
  })
  code!: string;
}

/**
 * The OpenAPI property of each detail the catalogue declares: its type, an
 * example, and per group of codes what it says there.
 *
 * @internal exported for its spec
 */
export function errorDetailProperties(): Record<string, { type: ErrorDetail['type']; description: string; example: string | number }> {
  const byName = new Map<string, Array<[code: string, detail: ErrorDetail]>>();
  for (const [code, entry] of Object.entries<ErrorCatalogueEntry>(ERROR_CATALOGUE)) {
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
