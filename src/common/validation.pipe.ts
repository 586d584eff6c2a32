import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { apiError } from './api-errors.js';

/** Properties whose validation failure has a code of its own. */
const CODE_BY_PROPERTY: Record<string, 'invalid_deadline_ms'> = { deadlineMs: 'invalid_deadline_ms' };

function describe(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((error) => {
    const path = `${prefix}${error.property}`;
    const own = Object.values(error.constraints ?? {});
    return [...own, ...describe(error.children ?? [], `${path}.`)].map((m) => (m.startsWith(path) ? m : `${path}: ${m}`));
  });
}

/**
 * Request-body validation for every route: class-validator DTOs, answered as
 * `400 {error, code}`. Bodies are validated, not transformed, so handlers see
 * exactly what was sent.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: false,
    forbidUnknownValues: true,
    exceptionFactory: (errors) => {
      const special = errors.map((e) => CODE_BY_PROPERTY[e.property]).find(Boolean);
      return apiError(special ?? 'invalid_request', {}, { message: describe(errors).join('; ') || undefined });
    },
  });
}
