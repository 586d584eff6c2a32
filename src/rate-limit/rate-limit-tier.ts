/** The peer's three budgets: admissions, other writes, reads. */
export type RateLimitTier = 'prompt' | 'mutation' | 'read';

/** `/session/<anything>/<last>` on a path no route matched (a framework may still route it by case or a trailing slash). */
const SESSION_SUFFIX = /^\/session\/[^/]+\/([^/]+)\/?$/i;
/** A matched session route's last segment (`/session/:id/prompt` → `prompt`). */
const SESSION_TEMPLATE = /^\/session\/:id\/([^/]+)$/;
/** `/health` and `/health/ready` on a path no route matched. */
const PROBE = /^\/health(\/ready)?\/?$/i;

/**
 * The budget a request draws on, or `undefined` when it is exempt, as
 * `qwen serve` decides: `OPTIONS`, `/health` (and `/health/ready`),
 * `POST /session/:id/heartbeat` and `GET /session/:id/events` are exempt; `POST /session/:id/prompt` is a
 * `prompt`; any other method but `GET`/`HEAD` a `mutation`; the rest `read`.
 * `template` is the matched route's (`/session/:id/prompt`); without one the
 * raw path is judged the same way, case and a trailing slash aside.
 */
export function rateLimitTier(method: string, template: string | undefined, path: string): RateLimitTier | undefined {
  if (method === 'OPTIONS') return undefined;
  const read = method === 'GET' || method === 'HEAD';
  // The readiness probe too (the peer has none): refused for others' traffic, it would take the node out of rotation.
  const probe = template === undefined ? PROBE.test(path) : template === '/health' || template === '/health/ready';
  if (read && probe) return undefined;
  const last = template === undefined ? SESSION_SUFFIX.exec(path)?.[1]?.toLowerCase() : SESSION_TEMPLATE.exec(template)?.[1];
  if (last === 'heartbeat' && method === 'POST') return undefined;
  if (last === 'events' && method === 'GET') return undefined;
  if (last === 'prompt' && method === 'POST') return 'prompt';
  return read ? 'read' : 'mutation';
}
