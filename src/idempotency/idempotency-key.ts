import { apiError } from '../errors/api-errors.js';

/** 1–255 visible ASCII characters (docs/idempotency.md). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The request header that carries the key, and the answer header that marks a replay. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/**
 * The key of a request header value: `undefined` when absent,
 * `400 invalid_idempotency_key` when malformed (or sent twice).
 */
export function parseIdempotencyKey(raw: string | string[] | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (Array.isArray(raw) || !IDEMPOTENCY_KEY_PATTERN.test(raw)) throw apiError('invalid_idempotency_key');
  return raw;
}

/**
 * What a key is scoped to: the session (prompt admission; the session is its
 * owner's) or the principal and workspace (session create), and the client
 * id; the store's key for `key` in it. A create's key never replays one
 * principal's `{sessionId, clientId}` to another (docs/security.md#ownership).
 */
export const idempotencyScope = {
  prompt: (sessionId: string, clientId: string | undefined, key: string) => `prompt\u0000${sessionId}\u0000${clientId ?? ''}\u0000${key}`,
  session: (principal: string | undefined, workspace: string, clientId: string | undefined, key: string) =>
    `session\u0000${principal === undefined ? '' : `=${principal}`}\u0000${workspace}\u0000${clientId ?? ''}\u0000${key}`,
};
