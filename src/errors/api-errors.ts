import { ApiException } from './api-exception.js';
import { ERROR_CATALOGUE, type ApiErrorCode, type ApiErrorDetails, type ErrorCatalogueEntry } from './error-catalogue.js';
import type { ErrorDetail } from './error-details.js';

export { ERROR_CATALOGUE, type ApiErrorCode, type ApiErrorDetails, type ErrorCatalogueEntry } from './error-catalogue.js';

/** What `apiError` takes besides the code and its details. */
interface ApiErrorOptions {
  /** A message of its own instead of the catalogued one. */
  message?: string;
  /** Headers besides the catalogued ones. */
  headers?: Record<string, string>;
}

/**
 * Builds the exception of `code`, with its catalogued status, headers
 * (`Retry-After` included) and (unless given) message. Its details are the
 * ones its entry declares: required when it declares any every body carries.
 *
 * @publicApi
 */
export function apiError<C extends ApiErrorCode>(
  code: C,
  ...[details, options = {}]: Record<string, never> extends ApiErrorDetails<C>
    ? [details?: ApiErrorDetails<C>, options?: ApiErrorOptions]
    : [details: ApiErrorDetails<C>, options?: ApiErrorOptions]
): ApiException {
  const entry: ErrorCatalogueEntry = ERROR_CATALOGUE[code];
  const retryAfter = entry.retryAfter === undefined ? undefined : { 'Retry-After': String(entry.retryAfter) };
  const headers = entry.headers || retryAfter || options.headers ? { ...entry.headers, ...retryAfter, ...options.headers } : undefined;
  return new ApiException(entry.status, code, options.message ?? entry.message, details ?? {}, headers);
}

/* Named builders for the errors raised in more than one place, or with a message of their own: `throw sessionNotFound(id)`. */

export const sessionNotFound = (sessionId: string): ApiException => apiError('session_not_found', { sessionId });
export const promptNotFound = (sessionId: string, promptId: string): ApiException => apiError('prompt_not_found', { sessionId, promptId });
export const sessionBusy = (sessionId: string): ApiException => apiError('session_busy', { sessionId });
export const invalidRequest = (message: string): ApiException => apiError('invalid_request', {}, { message });
export const clientIdRequired = (): ApiException => apiError('invalid_client_id', {}, { message: 'A client id is required' });
export const malformedClientId = (): ApiException =>
  apiError('invalid_client_id', {}, { message: 'Client id is malformed: 1 to 128 of A-Z a-z 0-9 . _ : -' });
export const unregisteredClientId = (sessionId: string, clientId: string): ApiException =>
  apiError('invalid_client_id', { sessionId, clientId }, { message: 'Client id is not registered on this session' });
export const promptQueueFull = (sessionId: string, limit: number, pendingCount: number): ApiException =>
  apiError('prompt_queue_full', { sessionId, limit, pendingCount });
export const transcriptSnapshotUnavailable = (sessionId: string): ApiException =>
  apiError('transcript_snapshot_unavailable', { sessionId });
export const transcriptUnavailable = (sessionId: string): ApiException => apiError('transcript_unavailable', { sessionId });
export const clusterUnavailable = (details: ApiErrorDetails<'cluster_unavailable'> = {}): ApiException =>
  apiError('cluster_unavailable', details);
export const sessionFenced = (sessionId: string): ApiException => apiError('session_fenced', { sessionId });
export const ledgerUnavailable = (sessionId: string): ApiException => apiError('ledger_unavailable', { sessionId });
/** The readiness probe names only the failing check. */
export const notReady = (check: string): ApiException => apiError('not_ready', { check });
export const tooManyWaiters = (limit: number): ApiException => apiError('too_many_waiters', { limit });
/** A held request admitted while the app closes. */
export const shuttingDown = (): ApiException => apiError('shutting_down');
export const tooManySessions = (limit: number): ApiException => apiError('too_many_sessions', { limit });
export const tooManyStreams = (limit: number): ApiException => apiError('too_many_streams', { limit });
export const promptTooLarge = (sessionId: string, promptChars: number, maxChars: number): ApiException =>
  apiError('prompt_too_large', { sessionId, promptChars, maxChars });
export const transcriptPageTooLarge = (sessionId: string, pageBytes: number, maxBytes: number): ApiException =>
  apiError('transcript_page_too_large', { sessionId, pageBytes, maxBytes });
/** Over a rate-limit budget: `Retry-After` in seconds, the tier's limit and when the budget has room (epoch seconds). */
export const rateLimitExceeded = (tier: string, retryAfterMs: number, limit: number, now: number): ApiException =>
  apiError(
    'rate_limit_exceeded',
    { tier, retryAfterMs },
    {
      headers: {
        'Retry-After': String(Math.ceil(retryAfterMs / 1000)),
        'X-RateLimit-Limit': String(limit),
        'X-RateLimit-Reset': String(Math.ceil((now + retryAfterMs) / 1000)),
      },
    },
  );
export const originForbidden = (): ApiException => apiError('origin_forbidden');
export const hostForbidden = (): ApiException => apiError('origin_forbidden', {}, { message: 'Requests for this host are not allowed' });
export const unsupportedMediaType = (): ApiException =>
  apiError('unsupported_media_type', {}, { message: 'Request bodies must be application/json' });
export const transcriptTooLarge = (sessionId: string, snapshotSize: number, maxBytes: number): ApiException =>
  apiError('transcript_too_large', { sessionId, snapshotSize, maxBytes });

/** The wire body of `code` as documented: its message and the example of each detail it declares. */
export function apiErrorExample(code: ApiErrorCode): Record<string, unknown> {
  const entry: ErrorCatalogueEntry = ERROR_CATALOGUE[code];
  const details = Object.entries<ErrorDetail>(entry.details ?? {}).map(([name, detail]) => [name, detail.example]);
  return { error: entry.message, code, ...Object.fromEntries(details) };
}
