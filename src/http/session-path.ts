import { SESSION_ID_PATTERN } from '../turns/rules/limits.js';

const SESSION_PATH = /^\/session\/([^/?#]+)(?:[/?#]|$)/;
const LOAD_PATH = /^\/session\/[^/?#]+\/(?:load|resume)(?:[?#]|$)/;

/**
 * The session a request URL addresses (`/session/<uuid>` and everything
 * below it), or `undefined` — for `POST /session` itself, other routes, and
 * an id that is not a UUID (no session can have it, so the local routes
 * answer `404`; nothing unvalidated reaches the directory).
 */
export function sessionIdOf(url: string | undefined): string | undefined {
  const id = url ? SESSION_PATH.exec(url)?.[1] : undefined;
  return id !== undefined && SESSION_ID_PATTERN.test(id) ? id : undefined;
}

/** True for `POST /session/:id/load` and `/resume`, which claim a session no node owns. */
export function isLoadRequest(method: string | undefined, url: string | undefined): boolean {
  return method === 'POST' && url !== undefined && LOAD_PATH.test(url);
}
