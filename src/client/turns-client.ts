import type { PermissionOutcome, SessionEvent, SessionStreamMarker } from '../wire/session-event.js';
import type { AdmittedPrompt, CreatedSession, PendingPrompt } from '../wire/wire-types.js';
import type { PromptBlock } from '../turns/rules/turn-fields.js';
import type { PendingInteraction, SettledTurnStatus, TurnPage, TurnStatus } from '../turns/turn-status.js';
import type { AdmissionOptions, Capabilities, EventsOptions, ListTurnsOptions, TurnsClientOptions, WaitOptions } from './client-options.js';
import { TurnWaitTimeoutError, TurnWindowExpiredError } from './errors.js';
import { PermissionRequestWatch } from './permission-request-watch.js';
import { pollDelayMs } from './retry-policy.js';
import { sessionEvents } from './session-events.js';
import { sleep } from './sleep.js';
import { errorOf, route, TurnsTransport } from './turns-transport.js';

const TERMINAL = new Set(['completed', 'cancelled', 'error']);
const DEFAULT_TIMEOUT_MS = 10 * 60_000;

/** A fresh `Idempotency-Key`: a random UUID from the platform's Web Crypto (Node >= 20 and browsers). */
function newIdempotencyKey(): string {
  if (typeof globalThis.crypto.randomUUID === 'function') return globalThis.crypto.randomUUID();
  // Insecure browser contexts have getRandomValues but not randomUUID.
  return Array.from(globalThis.crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
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
  private readonly transport: TurnsTransport;
  private capabilitiesCache?: Promise<Capabilities>;

  constructor(options: TurnsClientOptions) {
    this.transport = new TurnsTransport(options);
  }

  /** `GET /capabilities` (remembered per client). */
  capabilities(): Promise<Capabilities> {
    this.capabilitiesCache ??= this.transport.json<Capabilities>('GET', '/capabilities').catch((error: unknown) => {
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
    return this.transport.json('POST', route`/session/${sessionId}/load`);
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
    return this.admission(route`/session/${sessionId}/prompt`, { prompt: blocks, ...rest }, { idempotencyKey });
  }

  getTurn(sessionId: string, promptId: string): Promise<TurnStatus> {
    return this.transport.json('GET', route`/session/${sessionId}/turns/${promptId}`);
  }

  getCurrent(sessionId: string): Promise<TurnStatus> {
    return this.transport.json('GET', route`/session/${sessionId}/turns/current`);
  }

  /** One page of the session's turns, newest first (`GET /session/:id/turns`). */
  listTurnsPage(sessionId: string, options: ListTurnsOptions = {}): Promise<TurnPage> {
    const query = new URLSearchParams();
    if (options.state !== undefined) query.set('state', typeof options.state === 'string' ? options.state : options.state.join(','));
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    if (options.pageToken) query.set('pageToken', options.pageToken);
    const search = query.toString();
    return this.transport.json('GET', route`/session/${sessionId}/turns` + (search ? `?${search}` : ''));
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
    return (await this.transport.json<{ pendingPrompts: PendingPrompt[] }>('GET', route`/session/${sessionId}/pending-prompts`))
      .pendingPrompts;
  }

  async removePending(sessionId: string, promptId: string): Promise<boolean> {
    return (await this.transport.json<{ removed: boolean }>('DELETE', route`/session/${sessionId}/pending-prompts/${promptId}`)).removed;
  }

  async cancel(sessionId: string): Promise<void> {
    await this.transport.json('POST', route`/session/${sessionId}/cancel`);
  }

  async rewind(sessionId: string, promptId: string): Promise<void> {
    await this.transport.json('POST', route`/session/${sessionId}/rewind`, { promptId });
  }

  fork(sessionId: string): Promise<{ sessionId: string; clientId: string }> {
    return this.transport.json('POST', route`/session/${sessionId}/fork`);
  }

  /**
   * The session's permission requests waiting for an answer, oldest first
   * (`pendingInteractions` of `GET /session/:id/status`).
   */
  async listPermissionRequests(sessionId: string): Promise<PendingInteraction[]> {
    const status = await this.transport.json<{ pendingInteractions?: Array<{ kind?: string }> }>(
      'GET',
      route`/session/${sessionId}/status`,
    );
    return (status.pendingInteractions ?? []).filter((item): item is PendingInteraction => item.kind === 'permission');
  }

  /**
   * Answers a permission request (`POST /session/:id/permission/:requestId`):
   * one of its options, or `{outcome: 'cancelled'}`. The first answer wins;
   * throws `TurnsApiError` — 404 `permission_not_found` when the request is
   * unknown or already answered, 400 for an option it did not offer, 403 when
   * the daemon's policy does not let this client answer.
   */
  async respondToPermission(sessionId: string, requestId: string, outcome: PermissionOutcome): Promise<void> {
    await this.transport.json('POST', route`/session/${sessionId}/permission/${requestId}`, { outcome });
  }

  async closeSession(sessionId: string): Promise<void> {
    await this.transport.json('DELETE', route`/session/${sessionId}`);
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
   * another prompt (admission starts a prompt on an idle session), and
   * `onPermissionRequest` each request the agent waits on, once. Throws
   * `TurnWindowExpiredError` when a prompt seen before answers 404,
   * `TurnWaitTimeoutError` when `timeoutMs` runs out, `TurnsApiError` for
   * any other error answer.
   */
  async waitForTurn(sessionId: string, promptId: string, options: WaitOptions = {}): Promise<SettledTurnStatus> {
    if (!options.onPermissionRequest) return this.waitUntilSettled(sessionId, promptId, options);
    // A listener that fails stops the wait, held request included.
    const stop = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    const watch = new PermissionRequestWatch(sessionId, promptId, options.onPermissionRequest, (error) => stop.abort(error));
    const onUpdate = (status: TurnStatus) => {
      options.onUpdate?.(status);
      watch.observe(status);
    };
    try {
      return await this.waitUntilSettled(sessionId, promptId, { ...options, signal, onUpdate });
    } finally {
      watch.close();
    }
  }

  private async waitUntilSettled(sessionId: string, promptId: string, options: WaitOptions): Promise<SettledTurnStatus> {
    const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const capabilities = await this.capabilities().catch(() => undefined);
    // The daemon's own bound, never a guess of ours: without one advertised, the loop polls (docs/decisions.md).
    const advertised = capabilities?.limits?.maxWaitMs;
    const maxWaitMs = typeof advertised === 'number' ? advertised : 0;
    const longPoll = (capabilities?.features.includes('session_turn_wait') ?? false) && maxWaitMs > 0;
    let last: TurnStatus | undefined;
    let etag: string | undefined;
    let unchanged = 0;
    for (;;) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new TurnWaitTimeoutError(sessionId, promptId, last);
      // The first answer comes at once; each later one is held until the status changes (§8: If-None-Match),
      // or — where no ETag reaches us (a proxy, a host's CORS) — until it settles.
      const waitMs = longPoll && last ? Math.max(0, Math.min(remaining, maxWaitMs)) : 0;
      const query = waitMs > 0 ? `?waitMs=${waitMs}` : '';
      const response = await this.transport.send('GET', route`/session/${sessionId}/turns/${promptId}` + query, undefined, {
        signal: options.signal,
        headers: etag ? { 'If-None-Match': etag } : {},
        heldMs: waitMs,
        // Too many held requests, a cluster failing over: waited out up to this wait's own deadline.
        unavailableUntil: deadline,
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
      } else if (response.status === 503 && response.headers.has('retry-after') && Date.now() >= deadline) {
        // Unavailable until the end: the wait ran out of time, as docs/waiting.md names it.
        throw new TurnWaitTimeoutError(sessionId, promptId, last);
      } else {
        const error = await errorOf(response);
        if (error.status === 404 && error.code === 'prompt_not_found' && last) throw new TurnWindowExpiredError(sessionId, promptId, last);
        throw error;
      }
      // Held without an ETag, a turn waiting on an approval is answered at once (docs/permissions.md): poll it instead.
      if (!longPoll || (!etag && last?.state === 'running' && last.pendingInteractions !== undefined)) {
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
   * answers an error. Leaving the loop closes the stream.
   */
  events(sessionId: string, options: EventsOptions = {}): AsyncGenerator<SessionEvent | SessionStreamMarker> {
    return sessionEvents(this.transport, sessionId, options);
  }

  /**
   * A POST that admits something, with one `Idempotency-Key` for every
   * attempt, so the retry policy may send it again: without a key
   * (`idempotencyKey: false`) nothing is retried.
   */
  private admission<T>(path: string, body: unknown, options: AdmissionOptions): Promise<T> {
    const key = options.idempotencyKey === false ? undefined : (options.idempotencyKey ?? newIdempotencyKey());
    return this.transport.json<T>('POST', path, body, { headers: key === undefined ? {} : { 'Idempotency-Key': key }, admission: true });
  }
}
