import type { SessionEvent, SessionStreamMarker } from '../wire/session-event.js';
import type { AdmittedPrompt, CreatedSession, PendingPrompt } from '../wire/wire-types.js';
import type { CapabilityLimits } from '../wire/capability-limits.js';
import type { PromptBlock } from '../turns/rules/turn-fields.js';
import type { TurnState } from '../turns/rules/turn-state.js';
import type { SettledTurnStatus, TurnPage, TurnStatus } from '../turns/turn-status.js';
import { TurnsApiError, TurnsConnectionError, TurnWaitTimeoutError, TurnWindowExpiredError } from './errors.js';
import { SseParser } from './sse-parser.js';

/** @publicApi */
export interface TurnsClientOptions {
  /** The daemon, e.g. `http://127.0.0.1:4170`. */
  baseUrl: string;
  /** Bearer token (`TURNS_TOKEN`). */
  token?: string;
  /** Sent as `X-Qwen-Client-Id` on session routes. */
  clientId?: string;
  /** A `fetch` to use instead of the platform's. */
  fetch?: typeof fetch;
  /** Header carrying the client id. @default 'X-Qwen-Client-Id' */
  clientIdHeader?: string;
  /**
   * Give up on one request that has not answered after this long (a held
   * turn request gets its wait on top; event streams are not limited).
   * @default no limit
   */
  requestTimeoutMs?: number;
  /**
   * How many times a request that could not reach the daemon, timed out, or
   * answered `503` with `Retry-After` is sent again. Only reads, and writes
   * that carry an `Idempotency-Key`, are retried: a prompt is never admitted
   * twice. @default 2
   */
  retries?: number;
}

/** @publicApi */
export interface Capabilities {
  v: number;
  features: string[];
  workspaceCwd: string;
  /** The limits in force; a daemon may send more than these, read by name. */
  limits: CapabilityLimits & { readonly [name: string]: number | undefined };
  workspaces: Array<{ id: string; cwd: string; primary: boolean }>;
}

/** @publicApi */
export interface WaitOptions {
  /** Give up after this long (`TurnWaitTimeoutError`). @default 10 minutes */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called with every new status seen (queued → running → terminal). */
  onUpdate?: (status: TurnStatus) => void;
}

/**
 * Retry safety of `prompt()` and `createSession()` (SPEC §13).
 *
 * @publicApi
 */
export interface AdmissionOptions {
  /**
   * The `Idempotency-Key` sent, the same on each of the client's own retries
   * (`retries`: a network failure, a timeout, a `503` with `Retry-After`, a
   * `409 idempotency_key_in_flight`, a `502`/`504`); `false` sends none, and
   * then nothing is retried. @default a new random UUID per call
   */
  idempotencyKey?: string | false;
}

/**
 * What `listTurns()` asks for (`GET /session/:id/turns`).
 *
 * @publicApi
 */
export interface ListTurnsOptions {
  /** Only turns in these states. */
  state?: TurnState | readonly TurnState[];
  /** Turns per page, 1 to 100. @default 20 (the daemon's) */
  limit?: number;
  /** Start at this page (a `nextPageToken` given before, with the same `state`). */
  pageToken?: string;
}

/** @publicApi */
export interface EventsOptions {
  /** Resume after this event id (otherwise from now). */
  lastEventId?: string;
  /** The session epoch `lastEventId` belongs to (`eventEpoch` of an admission or a load); sent as `X-Qwen-Event-Epoch`. */
  epoch?: string;
  signal?: AbortSignal;
}

const TERMINAL = new Set(['completed', 'cancelled', 'error']);
/** fetch's own rejection (a TypeError, maybe of another realm), not an abort or a time limit. */
function isFetchFailure(error: unknown): boolean {
  return error instanceof TypeError || (error as Error | undefined)?.name === 'TypeError';
}

/** First pause before a retry after a failure to reach the daemon; it doubles each time. */
const RETRY_DELAY_MS = 250;
/** Polling without long-poll: never faster than the server's hint, never slower than this. */
const MAX_POLL_DELAY_MS = 10_000;
const DEFAULT_TIMEOUT_MS = 10 * 60_000;

/** A fresh `Idempotency-Key`: a random UUID from the platform's Web Crypto (Node >= 20 and browsers). */
function newIdempotencyKey(): string {
  if (typeof globalThis.crypto.randomUUID === 'function') return globalThis.crypto.randomUUID();
  // Insecure browser contexts have getRandomValues but not randomUUID.
  return Array.from(globalThis.crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * True when a keyed admission answered so may be sent again with its key
 * (beyond what every request retries: unreachable, `503` with `Retry-After`):
 * the first is still in flight there, or a gateway could not pass it on.
 *
 * @internal exported for its spec
 */
export function isRetryableAdmission(status: number, code: string | undefined): boolean {
  return (status === 409 && code === 'idempotency_key_in_flight') || status === 502 || status === 504;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The next poll delay without long-poll: the server's `Retry-After` (seconds)
 * as the floor, growing by half each unchanged answer up to 10 s, with ±20%
 * jitter so clients do not poll in step.
 *
 * @internal exported for its spec
 */
export function pollDelayMs(retryAfter: string | null, unchangedPolls: number, random: () => number = Math.random): number {
  const hinted = retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) * 1000 : 1000;
  const base = Math.min(MAX_POLL_DELAY_MS, Math.max(hinted, 250) * 1.5 ** Math.min(unchangedPolls, 10));
  return Math.round(Math.min(MAX_POLL_DELAY_MS, Math.max(hinted, base * (0.8 + 0.4 * random()))));
}

/**
 * A typed client of the daemon's routes on the platform `fetch` (Node >= 20
 * and browsers; no dependencies). `waitForTurn` takes one request per outcome
 * when the daemon can hold requests (`session_turn_wait`), and otherwise
 * polls with `If-None-Match`, honoring `Retry-After` — so it also works
 * against a plain `qwen serve` daemon.
 *
 * ```ts
 * const client = new TurnsClient({ baseUrl: 'http://127.0.0.1:4170' });
 * const { sessionId } = await client.createSession();
 * const status = await client.promptAndWait(sessionId, 'hello');
 * ```
 *
 * @publicApi
 */
export class TurnsClient {
  private readonly baseUrl: string;
  private readonly fetcher: typeof fetch;
  private capabilitiesCache?: Promise<Capabilities>;

  constructor(private readonly options: TurnsClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetcher = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** `GET /capabilities` (remembered per client). */
  capabilities(): Promise<Capabilities> {
    this.capabilitiesCache ??= this.json<Capabilities>('GET', '/capabilities').catch((error: unknown) => {
      this.capabilitiesCache = undefined;
      throw error;
    });
    return this.capabilitiesCache;
  }

  /** `POST /session`, with an `Idempotency-Key` (reused by its own retries). */
  createSession(
    body: { cwd?: string; sessionScope?: 'single' | 'thread'; sessionId?: string } = {},
    options: AdmissionOptions = {},
  ): Promise<CreatedSession> {
    return this.admission('/session', body, options);
  }

  loadSession(sessionId: string): Promise<{ sessionId: string; workspaceCwd: string; clientId: string }> {
    return this.json('POST', `/session/${this.id(sessionId)}/load`);
  }

  /**
   * Admits a prompt: a string becomes one text block. Sent with an
   * `Idempotency-Key`, so its own retries never admit it twice.
   */
  prompt(
    sessionId: string,
    prompt: string | PromptBlock[],
    options: { deadlineMs?: number } & AdmissionOptions = {},
  ): Promise<AdmittedPrompt> {
    const { idempotencyKey, ...rest } = options;
    const blocks = typeof prompt === 'string' ? [{ type: 'text', text: prompt }] : prompt;
    return this.admission(`/session/${this.id(sessionId)}/prompt`, { prompt: blocks, ...rest }, { idempotencyKey });
  }

  getTurn(sessionId: string, promptId: string): Promise<TurnStatus> {
    return this.json('GET', `/session/${this.id(sessionId)}/turns/${this.id(promptId)}`);
  }

  getCurrent(sessionId: string): Promise<TurnStatus> {
    return this.json('GET', `/session/${this.id(sessionId)}/turns/current`);
  }

  /** One page of the session's turns, newest first (`GET /session/:id/turns`). */
  listTurnsPage(sessionId: string, options: ListTurnsOptions = {}): Promise<TurnPage> {
    const query = new URLSearchParams();
    if (options.state !== undefined) query.set('state', typeof options.state === 'string' ? options.state : options.state.join(','));
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    if (options.pageToken) query.set('pageToken', options.pageToken);
    const search = query.toString();
    return this.json('GET', `/session/${this.id(sessionId)}/turns${search ? `?${search}` : ''}`);
  }

  /**
   * The session's turns, newest first, a page at a time: iterate with
   * `for await (const page of client.listTurns(id))`; each page's
   * `nextPageToken` fetches the next, until there is none.
   */
  async *listTurns(sessionId: string, options: ListTurnsOptions = {}): AsyncGenerator<TurnPage> {
    let pageToken = options.pageToken;
    for (;;) {
      const page = await this.listTurnsPage(sessionId, { ...options, pageToken });
      yield page;
      if (!page.nextPageToken) return;
      pageToken = page.nextPageToken;
    }
  }

  async listPending(sessionId: string): Promise<PendingPrompt[]> {
    return (await this.json<{ pendingPrompts: PendingPrompt[] }>('GET', `/session/${this.id(sessionId)}/pending-prompts`)).pendingPrompts;
  }

  async removePending(sessionId: string, promptId: string): Promise<boolean> {
    return (await this.json<{ removed: boolean }>('DELETE', `/session/${this.id(sessionId)}/pending-prompts/${this.id(promptId)}`)).removed;
  }

  async cancel(sessionId: string): Promise<void> {
    await this.json('POST', `/session/${this.id(sessionId)}/cancel`);
  }

  async rewind(sessionId: string, promptId: string): Promise<void> {
    await this.json('POST', `/session/${this.id(sessionId)}/rewind`, { promptId });
  }

  fork(sessionId: string): Promise<{ sessionId: string; clientId: string }> {
    return this.json('POST', `/session/${this.id(sessionId)}/fork`);
  }

  async closeSession(sessionId: string): Promise<void> {
    await this.json('DELETE', `/session/${this.id(sessionId)}`);
  }

  /** Admits a prompt and waits for its terminal status. */
  async promptAndWait(
    sessionId: string,
    prompt: string | PromptBlock[],
    options: WaitOptions & { deadlineMs?: number } = {},
  ): Promise<SettledTurnStatus> {
    const { promptId } = await this.prompt(sessionId, prompt, { deadlineMs: options.deadlineMs });
    return this.waitForTurn(sessionId, promptId, options);
  }

  /**
   * Resolves with the prompt's terminal status; `onUpdate` gets each state it
   * reads on the way: running → terminal, with queued first only behind
   * another prompt (admission starts a prompt on an idle session). Throws
   * `TurnWindowExpiredError` when a prompt seen before answers 404,
   * `TurnWaitTimeoutError` when `timeoutMs` runs out, `TurnsApiError` for
   * any other error answer.
   */
  async waitForTurn(sessionId: string, promptId: string, options: WaitOptions = {}): Promise<SettledTurnStatus> {
    const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const capabilities = await this.capabilities().catch(() => undefined);
    // The daemon's own bound, never a guess of ours: without one advertised, the loop polls (docs/decisions.md).
    const advertised = capabilities?.limits?.maxWaitMs;
    const maxWaitMs = typeof advertised === 'number' ? advertised : 0;
    const longPoll = (capabilities?.features.includes('session_turn_wait') ?? false) && maxWaitMs > 0;
    let last: TurnStatus | undefined;
    let etag: string | undefined;
    let unchanged = 0;
    let unavailable = 0;
    for (;;) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new TurnWaitTimeoutError(sessionId, promptId, last);
      // The first answer comes at once; each later one is held until the status changes (§8: If-None-Match),
      // or — where no ETag reaches us (a proxy, a host's CORS) — until it settles.
      const waitMs = longPoll && last ? Math.max(0, Math.min(remaining, maxWaitMs)) : 0;
      const query = waitMs > 0 ? `?waitMs=${waitMs}` : '';
      const response = await this.request('GET', `/session/${this.id(sessionId)}/turns/${this.id(promptId)}${query}`, undefined, {
        signal: options.signal,
        headers: etag ? { 'If-None-Match': etag } : {},
        heldMs: waitMs,
        // This loop waits out a 503 itself, up to its own deadline.
        retryUnavailable: false,
      });
      if (response.status === 304) {
        unchanged += 1;
      } else if (response.ok) {
        const status = (await response.json()) as TurnStatus;
        etag = response.headers.get('etag') ?? undefined;
        last = status;
        unchanged = 0;
        options.onUpdate?.(status);
        if (TERMINAL.has(status.state)) return status as SettledTurnStatus;
      } else {
        const body = await response.json().catch(() => undefined);
        const code = (body as { code?: string } | undefined)?.code;
        if (response.status === 404 && code === 'prompt_not_found' && last) throw new TurnWindowExpiredError(sessionId, promptId, last);
        // Transient (too many held requests, a cluster failing over): try again when the server says.
        if (response.status === 503 && response.headers.has('retry-after') && deadline - Date.now() > 0) {
          const delay = pollDelayMs(response.headers.get('retry-after'), ++unavailable);
          await sleep(Math.min(delay, Math.max(0, deadline - Date.now())), options.signal);
          continue;
        }
        throw new TurnsApiError(response.status, code, body);
      }
      unavailable = 0;
      if (!longPoll) {
        const delay = Math.min(pollDelayMs(response.headers.get('retry-after'), unchanged), Math.max(0, deadline - Date.now()));
        await sleep(delay, options.signal);
      }
    }
  }

  /**
   * The session's events as they come, typed, with the markers that open a
   * stream (`replay_complete`, `state_resync_required`: no `id`); reconnects
   * with `Last-Event-ID` and the epoch the stream named after the server's
   * `retry` delay when the stream drops, until `signal` aborts or the session
   * answers an error.
   */
  async *events(sessionId: string, options: EventsOptions = {}): AsyncGenerator<SessionEvent | SessionStreamMarker> {
    let lastEventId = options.lastEventId;
    let epoch = options.epoch;
    let retryMs = 3_000;
    for (;;) {
      if (options.signal?.aborted) return;
      let response: Response;
      try {
        response = await this.request('GET', `/session/${this.id(sessionId)}/events`, undefined, {
          signal: options.signal,
          headers: {
            Accept: 'text/event-stream',
            ...(lastEventId !== undefined && { 'Last-Event-ID': lastEventId }),
            ...(lastEventId !== undefined && epoch !== undefined && { 'X-Qwen-Event-Epoch': epoch }),
          },
          stream: true,
        });
      } catch {
        // A network failure: try again after the server's retry delay.
        if (options.signal?.aborted) return;
        await sleep(retryMs, options.signal).catch(() => undefined);
        continue;
      }
      if (!response.ok || !response.body) {
        const body = await response.json().catch(() => undefined);
        throw new TurnsApiError(response.status, (body as { code?: string } | undefined)?.code, body);
      }
      // A cursor is of the epoch the stream names; a new epoch (a restart) is told by state_resync_required.
      epoch = response.headers.get('x-qwen-event-epoch') ?? epoch;
      const queue: Array<SessionEvent | SessionStreamMarker> = [];
      const parser = new SseParser(
        (event) => queue.push(JSON.parse(event.data) as SessionEvent | SessionStreamMarker),
        (ms) => (retryMs = ms),
        (id) => (lastEventId = id),
      );
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          parser.push(value);
          while (queue.length > 0) yield queue.shift()!;
        }
      } catch {
        if (options.signal?.aborted) return;
      } finally {
        reader.releaseLock();
      }
      await sleep(retryMs, options.signal).catch(() => undefined);
    }
  }

  /** Path segments are the caller's ids: encoded, so none can change the route. */
  private id(value: string): string {
    return encodeURIComponent(value);
  }

  /**
   * A POST that admits something, with one `Idempotency-Key` for every
   * attempt: `request` retries what never reached the daemon; this also
   * retries answers that processed nothing.
   */
  private async admission<T>(path: string, body: unknown, options: AdmissionOptions): Promise<T> {
    const key = options.idempotencyKey === false ? undefined : (options.idempotencyKey ?? newIdempotencyKey());
    const headers: Record<string, string> = key === undefined ? {} : { 'Idempotency-Key': key };
    const retries = key === undefined ? 0 : (this.options.retries ?? 2);
    for (let attempt = 0; ; attempt += 1) {
      const response = await this.request('POST', path, body, { headers });
      if (response.ok || attempt >= retries) return this.parsed<T>(response);
      const answer = await response
        .clone()
        .json()
        .catch(() => undefined);
      if (!isRetryableAdmission(response.status, (answer as { code?: string } | undefined)?.code)) return this.parsed<T>(response);
      await sleep(pollDelayMs(response.headers.get('retry-after'), attempt));
    }
  }

  private async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.parsed<T>(await this.request(method, path, body));
  }

  private async parsed<T>(response: Response): Promise<T> {
    const text = await response.text();
    const parsed: unknown = text ? JSON.parse(text) : undefined;
    if (!response.ok) throw new TurnsApiError(response.status, (parsed as { code?: string } | undefined)?.code, parsed);
    return parsed as T;
  }

  /**
   * One exchange, sent again (up to `retries` times) when it could not reach
   * the daemon, timed out, or met a `503` with `Retry-After` — only where a
   * repeat cannot do the work twice.
   */
  private async request(
    method: string,
    path: string,
    body?: unknown,
    extra: { signal?: AbortSignal; headers?: Record<string, string>; heldMs?: number; stream?: boolean; retryUnavailable?: false } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { ...extra.headers };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (this.options.token) headers.Authorization = `Bearer ${this.options.token}`;
    if (this.options.clientId && path.startsWith('/session/'))
      headers[this.options.clientIdHeader ?? 'X-Qwen-Client-Id'] = this.options.clientId;
    const repeatable = method === 'GET' || 'Idempotency-Key' in headers;
    const attempts = 1 + (repeatable ? (this.options.retries ?? 2) : 0);
    for (let attempt = 1; ; attempt += 1) {
      let response: Response;
      try {
        response = await this.fetcher(`${this.baseUrl}${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: this.signalFor(extra),
        });
      } catch (error) {
        if (extra.signal?.aborted) throw error;
        // fetch rejects with a bare TypeError when it cannot connect: named here, with the URL.
        if (attempt >= attempts) throw isFetchFailure(error) ? new TurnsConnectionError(`${this.baseUrl}${path}`, error) : error;
        await sleep(RETRY_DELAY_MS * 2 ** (attempt - 1), extra.signal);
        continue;
      }
      const unavailable = response.status === 503 && response.headers.has('retry-after') && extra.retryUnavailable !== false;
      if (!unavailable || attempt >= attempts) return response;
      await response.body?.cancel();
      await sleep(pollDelayMs(response.headers.get('retry-after'), attempt - 1), extra.signal);
    }
  }

  /** The caller's signal, and the per-request time limit unless the answer is a stream. */
  private signalFor(extra: { signal?: AbortSignal; heldMs?: number; stream?: boolean }): AbortSignal | undefined {
    const limit = this.options.requestTimeoutMs;
    if (limit === undefined || extra.stream) return extra.signal;
    const timeout = AbortSignal.timeout(limit + (extra.heldMs ?? 0));
    return extra.signal ? AbortSignal.any([extra.signal, timeout]) : timeout;
  }
}
