import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '../common/swagger.js';
import { ERROR_CATALOGUE, apiErrorExample, type ApiErrorCode, type ErrorCatalogueEntry } from './api-errors.js';
import { ErrorResponseDto } from './error-response.dto.js';

/** Where a handler records the codes it answers, for the document's `ErrorCode` enum (answeredErrorCodes). */
const ANSWERED_CODES = Symbol('turns:answeredErrorCodes');

/** The codes these handlers declared with {@link ApiErrorResponses}. */
export function answeredErrorCodes(handlers: Iterable<object>): Set<ApiErrorCode> {
  const codes = new Set<ApiErrorCode>();
  for (const handler of handlers)
    for (const code of (Reflect.getMetadata(ANSWERED_CODES, handler) ?? []) as ApiErrorCode[]) codes.add(code);
  return codes;
}

/**
 * Documents the error answers of an operation: one response per status, with
 * one named example per code, all taken from the error catalogue.
 */
export function ApiErrorResponses(...codes: ApiErrorCode[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_CATALOGUE[code].status, [...(byStatus.get(ERROR_CATALOGUE[code].status) ?? []), code]);
  // A response documents `Retry-After` when one of its codes is catalogued with it.
  const headers = (group: ApiErrorCode[]) =>
    group.some((code) => (ERROR_CATALOGUE[code] as ErrorCatalogueEntry).retryAfter !== undefined)
      ? { 'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer' as const } } }
      : undefined;
  return applyDecorators(
    (target: object, key?: string | symbol, descriptor?: PropertyDescriptor) => {
      const holder = (descriptor?.value ?? target) as object;
      Reflect.defineMetadata(
        ANSWERED_CODES,
        [...((Reflect.getMetadata(ANSWERED_CODES, holder) ?? []) as ApiErrorCode[]), ...codes],
        holder,
      );
    },
    ...[...byStatus].map(([status, group]) =>
      ApiResponse({
        status,
        type: ErrorResponseDto,
        description: group.join(', '),
        headers: headers(group),
        examples: Object.fromEntries(group.map((code) => [code, { summary: code, value: apiErrorExample(code) }])),
      }),
    ),
  );
}
