import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { API_ERRORS, apiErrorExample, type ApiErrorCode } from './api-errors.js';
import { ErrorResponseDto } from './error-response.dto.js';

/**
 * Documents the error answers of an operation: one response per status, with
 * one named example per code, all taken from the error catalogue.
 */
export function ApiErrorResponses(...codes: ApiErrorCode[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of codes) byStatus.set(API_ERRORS[code].status, [...(byStatus.get(API_ERRORS[code].status) ?? []), code]);
  // A 503 always says when to retry; so does a 409 for a key still in flight.
  const headers = (status: number) =>
    status === 503 || byStatus.get(status)!.includes('idempotency_key_in_flight')
      ? { 'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer' as const } } }
      : undefined;
  return applyDecorators(
    ...[...byStatus].map(([status, group]) =>
      ApiResponse({
        status,
        type: ErrorResponseDto,
        description: group.join(', '),
        headers: headers(status),
        examples: Object.fromEntries(group.map((code) => [code, { summary: code, value: apiErrorExample(code) }])),
      }),
    ),
  );
}
