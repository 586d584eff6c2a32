import type { TurnsClientOptions } from './client-options.js';
import { TurnsApiError, TurnsConnectionError } from './errors.js';
import { RetryPolicy, retryAfterMs, type RetryScope } from './retry-policy.js';
import { sleep } from './sleep.js';

/** What one call sends besides its method, path and body. */
export interface SendOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** A held request: its wait is added to `requestTimeoutMs`. */
  heldMs?: number;
  /** The answer is a stream: no time limit. */
  stream?: boolean;
  /** A keyed admission ({@link RetryScope.admission}). */
  admission?: boolean;
  /** {@link RetryScope.unavailableUntil}. */
  unavailableUntil?: number;
}

/** fetch's own rejection (a TypeError, maybe of another realm), not an abort or a time limit. */
function isFetchFailure(error: unknown): boolean {
  return error instanceof TypeError || (error as Error | undefined)?.name === 'TypeError';
}

/** An error answer's JSON body, read from a copy (the caller may still read the answer). */
async function errorBodyOf(response: Response): Promise<{ code?: unknown; tier?: unknown; retryAfterMs?: unknown } | undefined> {
  return (await response
    .clone()
    .json()
    .catch(() => undefined)) as { code?: unknown } | undefined;
}

/** The `code` of an error answer's body. */
async function codeOf(response: Response): Promise<string | undefined> {
  const code = (await errorBodyOf(response))?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The longest a call waits out `429`s by default. */
const MAX_RATE_LIMIT_WAIT_MS = 300_000;

/** An answer's body: its JSON, else its text (a proxy's error page), undefined when empty. */
async function bodyOf(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The `TurnsApiError` of an error answer, its body read (JSON or not). */
export async function errorOf(response: Response): Promise<TurnsApiError> {
  return TurnsApiError.of(response.status, await bodyOf(response).catch(() => undefined));
}

/** A route with the caller's ids in it, each encoded so that none can change the route. */
export function route(parts: TemplateStringsArray, ...ids: string[]): string {
  return parts.reduce((path, part, i) => path + part + (i < ids.length ? encodeURIComponent(ids[i]!) : ''), '');
}

/**
 * The client's exchanges with the daemon: the token, the client id, the
 * per-request time limit, and the {@link RetryPolicy} applied in one loop.
 *
 * @internal
 */
export class TurnsTransport {
  private readonly baseUrl: string;
  private readonly fetcher: typeof fetch;
  private readonly policy: RetryPolicy;

  constructor(private readonly options: TurnsClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetcher = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.policy = new RetryPolicy(options.retries ?? 2);
  }

  /** One call: sent, and sent again while the retry policy says so; the last answer is returned as it is. */
  async send(method: string, path: string, body?: unknown, extra: SendOptions = {}): Promise<Response> {
    const url = `${this.baseUrl}${path}`;
    const headers: Record<string, string> = { ...extra.headers };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (this.options.token) headers.Authorization = `Bearer ${this.options.token}`;
    if (this.options.clientId && path.startsWith('/session/'))
      headers[this.options.clientIdHeader ?? 'X-Qwen-Client-Id'] = this.options.clientId;
    const scope: RetryScope = {
      repeatable: method === 'GET' || 'Idempotency-Key' in headers,
      admission: extra.admission,
      unavailableUntil: extra.unavailableUntil,
    };
    let rateLimitedMs = 0;
    for (let retried = 0; ; retried += 1) {
      let response: Response;
      try {
        const init = { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: this.signalFor(extra) };
        response = await this.fetcher(url, init);
      } catch (error) {
        if (extra.signal?.aborted) throw error;
        const delay = this.policy.delayMs({ unreachable: true }, retried, scope);
        // fetch rejects with a bare TypeError when it cannot connect: named here, with the URL.
        if (delay === undefined) throw isFetchFailure(error) ? new TurnsConnectionError(url, error) : error;
        await sleep(delay, extra.signal);
        continue;
      }
      const limited = response.status === 429 ? await this.rateLimitWait(method, path, response, rateLimitedMs, extra) : undefined;
      if (limited !== undefined) {
        // Refused before anything ran: sent again, whatever the method, and not counted as a retry.
        rateLimitedMs += limited;
        retried -= 1;
        await response.body?.cancel();
        await sleep(limited, extra.signal);
        continue;
      }
      const code = response.status >= 400 && scope.repeatable ? await codeOf(response) : undefined;
      const delay = this.policy.delayMs({ status: response.status, code, retryAfter: response.headers.get('retry-after') }, retried, scope);
      if (delay === undefined) return response;
      await response.body?.cancel();
      await sleep(delay, extra.signal);
    }
  }

  /**
   * How long to wait out a `429` before sending the call again: the daemon's
   * `retryAfterMs` (else `Retry-After`; at least 250 ms) plus up to 10% jitter; `undefined`
   * when there is no hint, the answer is not the daemon's refusal and the
   * call is not repeatable, or the call's wait for `429`s (or its `unavailableUntil`) is spent.
   */
  private async rateLimitWait(method: string, path: string, response: Response, waited: number, extra: SendOptions) {
    const body = await errorBodyOf(response);
    const refusedFirst = body?.code === 'rate_limit_exceeded';
    if (!refusedFirst && method !== 'GET' && method !== 'HEAD') return undefined;
    const hinted =
      typeof body?.retryAfterMs === 'number' ? body.retryAfterMs : retryAfterMs(response.headers.get('retry-after'), Date.now());
    if (hinted === undefined) return undefined;
    // Never sooner than a quarter second, whatever a server hints: a `0` must not become a tight loop.
    const wait = Math.ceil(Math.max(hinted, 250) * (1 + 0.1 * Math.random()));
    const allowed = Math.min(this.options.maxRateLimitWaitMs ?? MAX_RATE_LIMIT_WAIT_MS, (extra.unavailableUntil ?? Infinity) - Date.now());
    if (waited + wait > allowed) return undefined;
    const tier = typeof body?.tier === 'string' ? body.tier : undefined;
    this.options.onRateLimited?.({ method, path: path.split('?')[0]!, ...(tier && { tier }), retryAfterMs: hinted });
    return wait;
  }

  /** A call whose answer is JSON: parsed, or thrown as `TurnsApiError` (whatever an error answer's body is). */
  async json<T>(method: string, path: string, body?: unknown, extra?: SendOptions): Promise<T> {
    const response = await this.send(method, path, body, extra);
    if (!response.ok) throw await errorOf(response);
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** The caller's signal, and the per-request time limit unless the answer is a stream. */
  private signalFor(extra: SendOptions): AbortSignal | undefined {
    const limit = this.options.requestTimeoutMs;
    if (limit === undefined || extra.stream) return extra.signal;
    const timeout = AbortSignal.timeout(limit + (extra.heldMs ?? 0));
    return extra.signal ? AbortSignal.any([extra.signal, timeout]) : timeout;
  }
}
