import { ApiException } from './api-exception.js';
import { WAIT_DEFAULTS } from '../turns/wait/wait.settings.js';

const SID = '5c1d2a8e-7f7b-4a44-9a57-1f2e3d4c5b6a';
const PID = 'caa0b1c2-d3e4-4f50-8a6b-7c8d9e0f1a2b';

/**
 * One code of the catalogue: its status, message, the seconds of its
 * `Retry-After` (if any), other headers, and the details documented for it.
 *
 * @publicApi
 */
export interface ErrorCatalogueEntry {
  status: number;
  message: string;
  /** `Retry-After` of every answer with this code. */
  retryAfter?: number;
  headers?: Record<string, string>;
  example?: Record<string, unknown>;
}

/**
 * Every error code the package answers with, its HTTP status, message and
 * headers: the one place a reader finds them. {@link apiError} is the only way
 * an {@link ApiException} with one of these codes is made.
 *
 * @publicApi
 */
export const ERROR_CATALOGUE = {
  invalid_request: { status: 400, message: 'Invalid request body' },
  invalid_json: { status: 400, message: 'Malformed JSON body' },
  invalid_client_id: {
    status: 400,
    message: 'Client id is not registered on this session',
    example: { sessionId: SID, clientId: 'client_42' },
  },
  invalid_session_id: { status: 400, message: 'sessionId must be a UUID' },
  invalid_deadline_ms: { status: 400, message: 'deadlineMs must be a positive integer' },
  invalid_wait_ms: {
    status: 400,
    message: 'waitMs must be an integer from 0 to maxWaitMs',
    example: { maxWaitMs: WAIT_DEFAULTS.maxWaitMs },
  },
  invalid_idempotency_key: { status: 400, message: 'Idempotency-Key must be 1 to 255 visible ASCII characters' },
  invalid_turn_state: {
    status: 400,
    message: 'state must be a comma list of idle, queued, running, completed, cancelled, error',
    example: { state: 'done' },
  },
  invalid_limit: { status: 400, message: 'limit must be an integer from 1 to 100', example: { maxLimit: 100 } },
  invalid_page_token: {
    status: 400,
    message: 'pageToken is not a token this list gave, or its filter differs',
    example: { sessionId: SID },
  },
  invalid_transcript_cursor: { status: 400, message: 'Invalid transcript cursor', example: { sessionId: SID } },
  webhook_url_forbidden: {
    status: 400,
    message: 'The webhook URL is not an http(s) URL of a host this daemon may call',
    example: { reason: 'private address' },
  },
  workspace_mismatch: { status: 400, message: 'cwd is not a workspace of this daemon', example: { cwd: '/srv/other' } },
  // RFC 6750: every 401 names the scheme it wants.
  unauthorized: { status: 401, message: 'Unauthorized', headers: { 'WWW-Authenticate': 'Bearer' } },
  request_timeout: { status: 408, message: 'Request timeout' },
  origin_forbidden: { status: 403, message: 'Requests from this origin are not allowed' },
  payload_too_large: { status: 413, message: 'Request body too large' },
  prompt_too_large: { status: 413, message: 'Prompt too large', example: { sessionId: SID, promptChars: 2000000, maxChars: 1048576 } },
  unsupported_media_type: { status: 415, message: 'Unsupported media type' },
  request_header_fields_too_large: { status: 431, message: 'Request header fields too large' },
  session_not_found: { status: 404, message: 'Session not found', example: { sessionId: SID } },
  prompt_not_found: { status: 404, message: 'Prompt not found', example: { sessionId: SID, promptId: PID } },
  webhook_not_found: {
    status: 404,
    message: 'Webhook not found',
    example: { sessionId: SID, webhookId: 'wh_2f0e6c1e-3c1d-4b8e-9d51-0d6f4c1b2a39' },
  },
  not_found: { status: 404, message: 'Not found' },
  method_not_allowed: { status: 405, message: 'Method not allowed on this path; see Allow' },
  // The SessionOwnership port's answers (the cluster's ownership gives them): documented on the runtime's routes, so kept here.
  session_on_other_node: {
    status: 409,
    message: 'The session is live on another node; load it (POST /session/:id/load) through any node to attach',
    example: { sessionId: SID, node: 'node-b' },
  },
  session_busy: { status: 409, message: 'A prompt is queued or running, or a rewind is in progress', example: { sessionId: SID } },
  too_many_webhooks: { status: 409, message: 'Too many webhooks for this session', example: { sessionId: SID, limit: 8 } },
  idempotency_key_in_flight: { status: 409, message: 'A request with this Idempotency-Key is still being processed', retryAfter: 1 },
  idempotency_key_reused: { status: 422, message: 'This Idempotency-Key was used with another request body' },
  transcript_unavailable: { status: 409, message: 'The transcript is not a regular file', example: { sessionId: SID } },
  transcript_snapshot_unavailable: {
    status: 409,
    message: 'Transcript changed or became unreadable during the scan',
    example: { sessionId: SID },
  },
  transcript_page_too_large: {
    status: 413,
    message: 'A transcript record exceeds the page size',
    example: { sessionId: SID, pageBytes: 5242880, maxBytes: 4194304 },
  },
  transcript_too_large: {
    status: 413,
    message: 'Transcript exceeds the snapshot size limit',
    example: { sessionId: SID, snapshotSize: 300000000, maxBytes: 268435456 },
  },
  internal_error: { status: 500, message: 'Internal server error' },
  fork_directive_unsupported: {
    status: 501,
    message:
      "A fork directive (the peer's background fork agent) is not supported; POST /session/:id/branch, or /fork without one, clones the session",
    example: { sessionId: SID },
  },
  prompt_queue_full: {
    status: 503,
    message: 'Too many pending prompts for this session',
    retryAfter: 1,
    example: { sessionId: SID, limit: 5, pendingCount: 5 },
  },
  // A SessionOwnership answer too (see session_on_other_node).
  cluster_unavailable: {
    status: 503,
    message: 'The cluster directory or the owner node is unreachable',
    retryAfter: 1,
    example: { sessionId: SID },
  },
  not_ready: { status: 503, message: 'Not ready', retryAfter: 1, example: { check: 'data_dir_writable' } },
  too_many_waiters: { status: 503, message: 'Too many held requests', retryAfter: 1, example: { limit: 10000 } },
  too_many_sessions: { status: 503, message: 'Too many live sessions', retryAfter: 1, example: { limit: 1000 } },
  too_many_streams: { status: 503, message: 'Too many open event streams', retryAfter: 1, example: { limit: 16 } },
} as const satisfies Record<string, ErrorCatalogueEntry>;

/**
 * The catalogue under its former name.
 *
 * @deprecated Use {@link ERROR_CATALOGUE}.
 * @publicApi
 */
export const API_ERRORS = ERROR_CATALOGUE;

/**
 * A code of {@link ERROR_CATALOGUE}.
 *
 * @publicApi
 */
export type ApiErrorCode = keyof typeof ERROR_CATALOGUE;

/**
 * Builds the exception of `code`, with its catalogued status, headers
 * (`Retry-After` included) and (unless given) message.
 *
 * @publicApi
 */
export function apiError(
  code: ApiErrorCode,
  details: Record<string, unknown> = {},
  options: { message?: string; /** Headers besides the catalogued ones. */ headers?: Record<string, string> } = {},
): ApiException {
  const entry: ErrorCatalogueEntry = ERROR_CATALOGUE[code];
  const retryAfter = entry.retryAfter === undefined ? undefined : { 'Retry-After': String(entry.retryAfter) };
  const headers = entry.headers || retryAfter || options.headers ? { ...entry.headers, ...retryAfter, ...options.headers } : undefined;
  return new ApiException(entry.status, code, options.message ?? entry.message, details, headers);
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
export const clusterUnavailable = (details: Record<string, unknown> = {}): ApiException => apiError('cluster_unavailable', details);
/** The readiness probe names only the failing check. */
export const notReady = (check: string): ApiException => apiError('not_ready', { check });
export const tooManyWaiters = (limit: number): ApiException => apiError('too_many_waiters', { limit });
/** A held request admitted while the app closes. */
export const shuttingDown = (): ApiException => apiError('too_many_waiters', { limit: 0 }, { message: 'Shutting down' });
export const tooManySessions = (limit: number): ApiException => apiError('too_many_sessions', { limit });
export const tooManyStreams = (limit: number): ApiException => apiError('too_many_streams', { limit });
export const promptTooLarge = (sessionId: string, promptChars: number, maxChars: number): ApiException =>
  apiError('prompt_too_large', { sessionId, promptChars, maxChars });
export const transcriptPageTooLarge = (sessionId: string, pageBytes: number, maxBytes: number): ApiException =>
  apiError('transcript_page_too_large', { sessionId, pageBytes, maxBytes });
export const originForbidden = (): ApiException => apiError('origin_forbidden');
export const hostForbidden = (): ApiException => apiError('origin_forbidden', {}, { message: 'Requests for this host are not allowed' });
export const unsupportedMediaType = (): ApiException =>
  apiError('unsupported_media_type', {}, { message: 'Request bodies must be application/json' });
export const transcriptTooLarge = (sessionId: string, snapshotSize: number, maxBytes: number): ApiException =>
  apiError('transcript_too_large', { sessionId, snapshotSize, maxBytes });

/** The wire body of `code` as documented: its message and example details. */
export function apiErrorExample(code: ApiErrorCode): Record<string, unknown> {
  const entry: ErrorCatalogueEntry = ERROR_CATALOGUE[code];
  return { error: entry.message, code, ...entry.example };
}
