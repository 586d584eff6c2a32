import type { PermissionOutcome, SessionEvent, SessionStreamMarker } from '../wire/session-event.js';
import type { AdmittedPrompt, CreatedSession, PendingPrompt } from '../wire/wire-types.js';
import type { PromptBlock } from '../turns/rules/turn-fields.js';
import type { PendingInteraction, SettledTurnStatus, TurnPage, TurnStatus } from '../turns/turn-status.js';
import type { AdmissionOptions, Capabilities, EventsOptions, ListTurnsOptions, TurnsClientOptions, WaitOptions } from './client-options.js';
import { newIdempotencyKey } from './idempotency-key.js';
import { sessionEvents } from './session-events.js';
import { route, TurnsTransport } from './turns-transport.js';
import { waitForTurn } from './wait-for-turn.js';

/**
 * A typed client of the daemon's routes on the platform `fetch` (Node >= 20 and browsers; no dependencies), shown in
 * packages/client/README.md; it holds a turn request only where the daemon can (docs/mounting.md#held-waits-for-turnsclient-and-the-command-line).
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
    return waitForTurn({ transport: this.transport, capabilities: () => this.capabilities() }, sessionId, promptId, options);
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
