import { createHash } from 'node:crypto';

const KEPT_HEADERS = ['x-turns-node', 'x-turns-via', 'etag', 'idempotent-replayed', 'retry-after'];
const NULL_BODY = new Set([101, 204, 205, 304]);

export const sha256 = (text) => createHash('sha256').update(text).digest('hex');

/** The op kind of CHAOS-HISTORY.md for a request; `final` names the checker's reads after the settle time. */
export function opKind(method, url, final = false) {
  const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const held = url.searchParams.has('waitMs');
  if (method === 'POST' && parts.length === 1 && parts[0] === 'session') return 'create';
  if (parts[0] !== 'session' || parts.length < 3) return 'other';
  const [, , route, sub] = parts;
  if (method === 'POST' && route === 'load') return 'load';
  if (method === 'POST' && route === 'prompt') return 'prompt';
  if (method === 'POST' && route === 'cancel') return 'cancel';
  if (method === 'DELETE' && route === 'pending-prompts') return 'remove';
  if (method === 'POST' && route === 'webhooks') return 'subscribe';
  if (method !== 'GET' || route !== 'turns') return 'other';
  if (sub === undefined) return final ? 'final-list' : 'list';
  if (held) return 'wait';
  if (sub === 'current') return 'current';
  return final ? 'final-exact' : 'exact';
}

/** What went wrong with an exchange that got no answer, as the history names it. */
export function errorName(error) {
  const code = error?.cause?.code ?? error?.code;
  if (code === 'ECONNRESET' || code === 'ECONNREFUSED' || code === 'UND_ERR_SOCKET') return code === 'UND_ERR_SOCKET' ? 'ECONNRESET' : code;
  if (error?.name === 'TimeoutError' || error?.name === 'AbortError') return 'timeout';
  return String(error?.cause?.message ?? error?.message ?? error);
}

function parseBody(text) {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return { raw: text.slice(0, 2_000) };
  }
}

/**
 * A `fetch` for TurnsClient that writes every exchange (each of the client's own
 * retries too) as an `op` record (with `extra`'s fields), then hands the client an equal Response.
 */
export function recordingFetch(history, client, { via = 'front', final = false, extra = {} } = {}) {
  let n = 0;
  return async (input, init = {}) => {
    const url = new URL(String(input));
    const method = init.method ?? 'GET';
    const headers = new Headers(init.headers);
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const op = opKind(method, url, final);
    const body = typeof init.body === 'string' ? init.body : null;
    const record = {
      type: 'op',
      id: `${client}-${++n}`,
      client,
      op,
      method,
      path: url.pathname + url.search,
      via,
      sessionId: parts[0] === 'session' ? (parts[1] ?? null) : null,
      promptId: parts[2] === 'turns' && parts[3] && parts[3] !== 'current' ? parts[3] : null,
      idempotencyKey: headers.get('idempotency-key'),
      bodyHash: body === null ? null : sha256(body),
      start: Date.now(),
      end: 0,
      status: null,
      error: null,
      body: null,
      headers: {},
      ...extra,
    };
    try {
      const res = await fetch(input, init);
      const text = NULL_BODY.has(res.status) ? '' : await res.text();
      record.end = Date.now();
      record.status = res.status;
      record.body = parseBody(text);
      for (const name of KEPT_HEADERS) if (res.headers.has(name)) record.headers[name] = res.headers.get(name);
      if (op === 'create' && record.body?.sessionId) record.sessionId = record.body.sessionId;
      if (op === 'prompt' && record.body?.promptId) record.promptId = record.body.promptId;
      history.write(record);
      return new Response(NULL_BODY.has(res.status) ? null : text, {
        status: res.status,
        statusText: res.statusText,
        headers: res.headers,
      });
    } catch (error) {
      record.end = Date.now();
      record.error = errorName(error);
      history.write(record);
      throw error;
    }
  };
}
