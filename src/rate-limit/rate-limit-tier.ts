/** The peer's three budgets: admissions, other writes, reads. */
export type RateLimitTier = 'prompt' | 'mutation' | 'read';

/** `/session/<anything>/<last>` on a path no route matched (a framework may still route it by case or a trailing slash). */
const SESSION_SUFFIX = /^\/session\/[^/]+\/([^/]+)\/?$/i;

/**
 * The budget a request draws on, or `undefined` when it is exempt, as
 * `qwen serve` decides: `OPTIONS`, `/health`, `POST /session/:id/heartbeat`
 * and `GET /session/:id/events` are exempt; `POST /session/:id/prompt` is a
 * `prompt`; any other method but `GET`/`HEAD` a `mutation`; the rest `read`.
 * `template` is the matched route's (`/session/:id/prompt`); without one the
 * raw path is judged the same way, case and a trailing slash aside.
 */
export function rateLimitTier(method: string, template: string | undefined, path: string): RateLimitTier | undefined {
  if (method === 'OPTIONS') return undefined;
  const read = method === 'GET' || method === 'HEAD';
  const [route, last] = template !== undefined ? [template, template.split('/').pop()] : [path, SESSION_SUFFIX.exec(path)?.[1]];
  const session = template !== undefined ? template.startsWith('/session/:id/') : last !== undefined;
  const name = last?.toLowerCase();
  if (read && (template === '/health' || (template === undefined && /^\/health\/?$/i.test(route)))) return undefined;
  if (session && name === 'heartbeat' && method === 'POST') return undefined;
  if (session && name === 'events' && method === 'GET') return undefined;
  if (session && name === 'prompt' && method === 'POST') return 'prompt';
  return read ? 'read' : 'mutation';
}
