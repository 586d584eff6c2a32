import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import { apiError, invalidRequest } from '../errors/api-errors.js';
import { jsonDepth, MAX_JSON_DEPTH } from './json-depth.js';
import { findLoneSurrogate } from './lone-surrogate.js';

/** Properties whose validation failure has a code of its own. */
const CODE_BY_PROPERTY: Record<string, 'invalid_deadline_ms' | 'invalid_max_tokens'> = {
  deadlineMs: 'invalid_deadline_ms',
  maxTokens: 'invalid_max_tokens',
};

function describe(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((error) => {
    const path = `${prefix}${error.property}`;
    const own = Object.values(error.constraints ?? {});
    return [...own, ...describe(error.children ?? [], `${path}.`)].map((m) => (m.startsWith(path) ? m : `${path}: ${m}`));
  });
}

/**
 * Body validation of the runtime's routes: class-validator DTOs, answered as
 * `400 {error, code}`. A body nested deeper than {@link MAX_JSON_DEPTH} is
 * refused (`invalid_json`) before any recursive code sees it, and a string
 * with a lone surrogate (no UTF-8 form) with `invalid_request` naming its
 * field. Bodies are validated, not transformed, so handlers see exactly what
 * was sent.
 */
class RuntimeValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body') {
      // Nest would validate `null` as `{}`; Express's strict parser refuses it, so Fastify must too.
      if (value === null) throw invalidRequest('The body must be a JSON object');
      if (jsonDepth(value, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
        throw apiError('invalid_json', {}, { message: `JSON nested deeper than ${MAX_JSON_DEPTH} levels` });
      }
      const field = findLoneSurrogate(value);
      if (field !== undefined) {
        throw invalidRequest(`${field.toWellFormed() || 'body'}: contains a lone UTF-16 surrogate`);
      }
    }
    return super.transform(value, metadata);
  }
}

export function createValidationPipe(): ValidationPipe {
  return new RuntimeValidationPipe({
    transform: false,
    forbidUnknownValues: true,
    exceptionFactory: (errors) => {
      const special = errors.map((e) => CODE_BY_PROPERTY[e.property]).find(Boolean);
      return apiError(special ?? 'invalid_request', {}, { message: describe(errors).join('; ') || undefined });
    },
  });
}
