import { SESSION_ID_PATTERN } from '../turns/rules/limits.js';
import { sessionOfRequestId } from '../wire/permission-request-id.js';

const SESSION_PREFIX = '/session/';
/** The peer's unscoped answer to a request for approval: its id names the session. */
const PERMISSION_PREFIX = '/permission/';
const UUID_LENGTH = 36;
/** `/`, `?` and `#` end the id. */
const ID_END = new Set([0x2f, 0x3f, 0x23]);
const LOAD_PATH = /^\/session\/[^/?#]+\/(?:load|resume)(?:[?#]|$)/;

/**
 * The session a request URL addresses (`/session/<uuid>` and everything
 * below it, and `/permission/<requestId>` by the session its id names), or
 * `undefined` — for `POST /session` itself, other routes, and
 * an id that is not a UUID (no session can have it, so the local routes
 * answer `404`; nothing unvalidated reaches the directory).
 */
export function sessionIdOf(url: string | undefined): string | undefined {
  // Read in place, not by a regex over the URL: the id has a UUID's 36 characters, ended by `/`, `?`, `#` or the URL's end.
  if (url?.startsWith(PERMISSION_PREFIX)) return sessionOfRequestId(url.slice(PERMISSION_PREFIX.length).split(/[/?#]/, 1)[0]!);
  if (url === undefined || !url.startsWith(SESSION_PREFIX)) return undefined;
  const end = SESSION_PREFIX.length + UUID_LENGTH;
  if (url.length > end && !ID_END.has(url.charCodeAt(end))) return undefined;
  const id = url.slice(SESSION_PREFIX.length, end);
  return SESSION_ID_PATTERN.test(id) ? id : undefined;
}

/** True for `POST /session/:id/load` and `/resume`, which claim a session no node owns. */
export function isLoadRequest(method: string | undefined, url: string | undefined): boolean {
  return method === 'POST' && url !== undefined && LOAD_PATH.test(url);
}

/** What a path addresses as the frameworks route it: a session, and for the unscoped answer route the request too. */
export interface AddressedSession {
  readonly sessionId: string;
  /** On `/permission/:requestId`: the request id, decoded and well formed. */
  readonly requestId?: string;
}

/** The first character of a path a session route can take once routed: `s`, `p` in any case, or an escape. */
const MAY_ADDRESS = new Set([0x73, 0x53, 0x70, 0x50, 0x25]);

/**
 * The session a request path reaches once a framework routes it, for the
 * checks that must not be bypassed: unlike {@link sessionIdOf} (the cluster
 * router's read of the canonical form) the first two segments are
 * percent-decoded (both adapters decode what they route) and the prefix is
 * matched in any case (Express routes without regard to it). `undefined` when
 * no session route can take the path, or those segments do not decode.
 */
export function sessionAddressedBy(path: string): AddressedSession | undefined {
  if (!MAY_ADDRESS.has(path.charCodeAt(1))) return undefined;
  const [, rawPrefix = '', rawId = ''] = path.split('/', 3);
  let prefix: string;
  let segment: string;
  try {
    prefix = (rawPrefix.includes('%') ? decodeURIComponent(rawPrefix) : rawPrefix).toLowerCase();
    segment = rawId.includes('%') ? decodeURIComponent(rawId) : rawId;
  } catch {
    return undefined;
  }
  if (prefix === 'session') return SESSION_ID_PATTERN.test(segment) ? { sessionId: segment } : undefined;
  const sessionId = prefix === 'permission' ? sessionOfRequestId(segment) : undefined;
  return sessionId === undefined ? undefined : { sessionId, requestId: segment };
}
