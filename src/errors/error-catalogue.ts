import {
  check,
  clientId,
  cwd,
  integer,
  maxChars,
  maxLimit,
  maxWaitMs,
  node,
  optionId,
  optional,
  pageBytes,
  pendingCount,
  promptChars,
  promptId,
  reason,
  requestId,
  retryAfterMs,
  sessionId,
  snapshotSize,
  state,
  tier,
  webhookId,
  type DetailsOf,
  type ErrorDetail,
  type ValueOfDetail,
} from './error-details.js';

/**
 * One code of the catalogue: its status, message, the seconds of its
 * `Retry-After` (if any), other headers, and the details its bodies carry.
 *
 * @publicApi
 */
export interface ErrorCatalogueEntry {
  status: number;
  message: string;
  /** `Retry-After` of every answer with this code. */
  retryAfter?: number;
  headers?: Record<string, string>;
  /** The fields besides `error` and `code`, by name: typed, documented, with an example. */
  details?: Record<string, ErrorDetail>;
}

/**
 * Every error code the package answers with, its HTTP status, message,
 * headers and details: the one place a reader finds them. `apiError` is the
 * only way an `ApiException` with one of these codes is made.
 *
 * @publicApi
 */
export const ERROR_CATALOGUE = {
  invalid_request: { status: 400, message: 'Invalid request body' },
  invalid_json: { status: 400, message: 'Malformed JSON body' },
  // A missing or malformed id names neither; an unregistered one names both.
  invalid_client_id: {
    status: 400,
    message: 'Client id is not registered on this session',
    details: { sessionId: optional(sessionId), clientId: optional(clientId) },
  },
  invalid_session_id: { status: 400, message: 'sessionId must be a UUID' },
  // docs/permissions.md#policy: under `ask` with the `designated` responder, nobody could answer an anonymous prompt's requests.
  client_id_required: {
    status: 400,
    message: 'Under the designated responder a prompt needs a client id (X-Qwen-Client-Id): nobody else may answer its requests',
    details: { sessionId },
  },
  permission_option_not_offered: {
    status: 400,
    message: 'optionId is not an option this request offered',
    details: { requestId, optionId },
  },
  invalid_deadline_ms: { status: 400, message: 'deadlineMs must be a positive integer' },
  invalid_max_tokens: { status: 400, message: 'maxTokens must be a positive integer' },
  invalid_wait_ms: { status: 400, message: 'waitMs must be an integer from 0 to maxWaitMs', details: { maxWaitMs } },
  invalid_activity: { status: 400, message: 'activity must be true or false' },
  invalid_idempotency_key: { status: 400, message: 'Idempotency-Key must be 1 to 255 visible ASCII characters' },
  invalid_turn_state: {
    status: 400,
    message: 'state must be a comma list of idle, queued, running, completed, cancelled, error',
    details: { state },
  },
  invalid_limit: { status: 400, message: 'limit must be an integer from 1 to 100', details: { maxLimit } },
  invalid_page_token: { status: 400, message: 'pageToken is not a token this list gave, or its filter differs', details: { sessionId } },
  invalid_transcript_cursor: { status: 400, message: 'Invalid transcript cursor', details: { sessionId } },
  webhook_url_forbidden: {
    status: 400,
    message: 'The webhook URL is not an http(s) URL of a host this daemon may call',
    details: { reason },
  },
  // The cwd asked for, or (creating a session by id) the session that belongs to another workspace.
  workspace_mismatch: {
    status: 400,
    message: 'cwd is not a workspace of this daemon',
    details: { cwd: optional(cwd), sessionId: optional(sessionId) },
  },
  // RFC 6750: every 401 names the scheme it wants.
  unauthorized: { status: 401, message: 'Unauthorized', headers: { 'WWW-Authenticate': 'Bearer' } },
  request_timeout: { status: 408, message: 'Request timeout' },
  origin_forbidden: { status: 403, message: 'Requests from this origin are not allowed' },
  // docs/permissions.md: under the `designated` responder, only the prompt's originator answers.
  permission_forbidden: {
    status: 403,
    message: "Only the prompt's originator may answer this request",
    details: { sessionId, requestId, clientId: optional(clientId) },
  },
  payload_too_large: { status: 413, message: 'Request body too large' },
  prompt_too_large: { status: 413, message: 'Prompt too large', details: { sessionId, promptChars, maxChars } },
  unsupported_media_type: { status: 415, message: 'Unsupported media type' },
  request_header_fields_too_large: { status: 431, message: 'Request header fields too large' },
  session_not_found: { status: 404, message: 'Session not found', details: { sessionId } },
  prompt_not_found: { status: 404, message: 'Prompt not found', details: { sessionId, promptId } },
  // Unknown, or answered already: the first answer won (docs/permissions.md).
  permission_not_found: { status: 404, message: 'Permission request not found or already answered', details: { requestId } },
  webhook_not_found: { status: 404, message: 'Webhook not found', details: { sessionId, webhookId } },
  not_found: { status: 404, message: 'Not found' },
  method_not_allowed: { status: 405, message: 'Method not allowed on this path; see Allow' },
  // The SessionOwnership port's answers (the cluster's ownership gives them): documented on the runtime's routes, so kept here.
  session_on_other_node: {
    status: 409,
    message: 'The session is live on another node; load it (POST /session/:id/load) through any node to attach',
    details: { sessionId, node },
  },
  session_busy: { status: 409, message: 'A prompt is queued or running, or a rewind is in progress', details: { sessionId } },
  too_many_webhooks: {
    status: 409,
    message: 'Too many webhooks for this session',
    details: { sessionId, limit: integer('the most webhooks a session may have', 8) },
  },
  idempotency_key_in_flight: { status: 409, message: 'A request with this Idempotency-Key is still being processed', retryAfter: 1 },
  idempotency_key_reused: { status: 422, message: 'This Idempotency-Key was used with another request body' },
  transcript_unavailable: { status: 409, message: 'The transcript is not a regular file', details: { sessionId } },
  transcript_snapshot_unavailable: {
    status: 409,
    message: 'Transcript changed or became unreadable during the scan',
    details: { sessionId },
  },
  transcript_page_too_large: {
    status: 413,
    message: 'A transcript record exceeds the page size',
    details: { sessionId, pageBytes, maxBytes: integer('the page size in bytes', 4194304) },
  },
  transcript_too_large: {
    status: 413,
    message: 'Transcript exceeds the snapshot size limit',
    details: { sessionId, snapshotSize, maxBytes: integer('the largest transcript in bytes', 268435456) },
  },
  // The peer's answer over a budget (docs/operating.md#rate-limits); Retry-After, X-RateLimit-Limit and -Reset are per answer.
  rate_limit_exceeded: {
    status: 429,
    message: 'Rate limit exceeded',
    headers: { 'X-RateLimit-Remaining': '0' },
    details: { tier, retryAfterMs },
  },
  internal_error: { status: 500, message: 'Internal server error' },
  fork_directive_unsupported: {
    status: 501,
    message:
      "A fork directive (the peer's background fork agent) is not supported; POST /session/:id/branch, or /fork without one, clones the session",
    details: { sessionId },
  },
  prompt_queue_full: {
    status: 503,
    message: 'Too many pending prompts for this session',
    retryAfter: 1,
    details: { sessionId, limit: integer('the most prompts a session may have pending, running included', 5), pendingCount },
  },
  // A SessionOwnership answer too (see session_on_other_node); the cluster's own routes name no session.
  cluster_unavailable: {
    status: 503,
    message: 'The cluster directory or the owner node is unreachable',
    retryAfter: 1,
    details: { sessionId: optional(sessionId), node: optional(node) },
  },
  // An admission answers 202 only once its in_flight record is written and synced; these two say why it was not (nothing admitted, the key freed).
  session_fenced: {
    status: 503,
    message:
      'This node lost the session while admitting the prompt; the prompt was withdrawn before it ran: send it again, and it reaches the owner',
    retryAfter: 1,
    details: { sessionId },
  },
  ledger_unavailable: {
    status: 503,
    message: 'The prompt could not be recorded (the data dir refused the write); it was withdrawn before it ran',
    retryAfter: 1,
    details: { sessionId },
  },
  not_ready: { status: 503, message: 'Not ready', retryAfter: 1, details: { check } },
  too_many_waiters: {
    status: 503,
    message: 'Too many held requests',
    retryAfter: 1,
    details: { limit: integer('the most held requests at once', 10000) },
  },
  // A turn request asking to wait once shutdown has begun: the restarted daemon, or another node, answers it later.
  shutting_down: { status: 503, message: 'Shutting down', retryAfter: 1 },
  too_many_sessions: {
    status: 503,
    message: 'Too many live sessions',
    retryAfter: 1,
    details: { limit: integer('the most live sessions', 32) },
  },
  too_many_streams: {
    status: 503,
    message: 'Too many open event streams',
    retryAfter: 1,
    details: { limit: integer('the most open event streams (of the daemon, or of the session)', 16) },
  },
} as const satisfies Record<string, ErrorCatalogueEntry>;

/**
 * A code of {@link ERROR_CATALOGUE}.
 *
 * @publicApi
 */
export type ApiErrorCode = keyof typeof ERROR_CATALOGUE;

/**
 * The details of a body of `code`, as its catalogue entry declares them
 * (`{}` for a code without any).
 *
 * @publicApi
 */
export type ApiErrorDetails<C extends ApiErrorCode> = DetailsOf<(typeof ERROR_CATALOGUE)[C]>;

type DetailMaps = { [C in ApiErrorCode]: (typeof ERROR_CATALOGUE)[C] extends { details: infer D } ? D : never }[ApiErrorCode];
type DetailName = DetailMaps extends infer M ? (M extends unknown ? keyof M : never) : never;
type DetailType<K> = DetailMaps extends infer M ? (M extends unknown ? (K extends keyof M ? ValueOfDetail<M[K]> : never) : never) : never;

/**
 * Every detail some error body carries, each optional: the fields of
 * `ErrorResponseDto` besides `error` and `code`.
 *
 * @publicApi
 */
export type AnyErrorDetails = { [K in DetailName]?: DetailType<K> };
