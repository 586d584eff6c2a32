import { SESSION_ID_PATTERN } from '../turns/rules/limits.js';

const UUID_LENGTH = 36;
const SUFFIX = /^[0-9a-f]{16}$/;

/**
 * A request for approval's id: `<sessionId>.<16 hex digits>`. It names its
 * session, so the peer's unscoped `POST /permission/:requestId` finds the
 * session's guard, and a cluster's router its owner, with no lookup.
 */
export function permissionRequestId(sessionId: string, random: string): string {
  return `${sessionId}.${random}`;
}

/** The session a request id names, or `undefined` for an id no request of this daemon can have. */
export function sessionOfRequestId(requestId: string): string | undefined {
  if (requestId.length !== UUID_LENGTH + 17 || requestId.charCodeAt(UUID_LENGTH) !== 0x2e) return undefined;
  const sessionId = requestId.slice(0, UUID_LENGTH);
  return SESSION_ID_PATTERN.test(sessionId) && SUFFIX.test(requestId.slice(UUID_LENGTH + 1)) ? sessionId : undefined;
}
