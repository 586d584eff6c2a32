import type { CapabilityLimits } from '../wire/capability-limits.js';
import type { TurnState } from '../turns/rules/turn-state.js';
import type { PendingInteraction, TurnStatus } from '../turns/turn-status.js';

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
   * How many times one call is sent again, all causes together: it could
   * not reach the daemon or timed out, it answered `503` with `Retry-After`,
   * or (a keyed admission) an answer that processed nothing. Only reads, and
   * writes that carry an `Idempotency-Key`, are retried: a prompt is never
   * admitted twice. `waitForTurn` waits out a `503` with `Retry-After` until
   * its own `timeoutMs` instead. @default 2
   */
  retries?: number;
  /**
   * Called each time a call waits out a `429` (the daemon's rate limits,
   * docs/operating.md#rate-limits) before sending it again: what waits, and
   * for how long. A `429` is waited out, not counted as a retry.
   */
  onRateLimited?: (wait: RateLimitWait) => void;
  /** The longest one call waits out `429`s, all together; past it the `429` is thrown. @default 300000 (5 minutes) */
  maxRateLimitWaitMs?: number;
}

/**
 * A `429` a call waits out.
 *
 * @publicApi
 */
export interface RateLimitWait {
  method: string;
  /** The route, without its query. */
  path: string;
  /** The budget spent (`prompt`, `mutation`, `read`), when the answer names it. */
  tier?: string;
  /** How long the call waits before it is sent again. */
  retryAfterMs: number;
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
  /**
   * Called once for each permission request of the turn, as it appears
   * (read from the status's `pendingInteractions`); answer it with
   * `respondToPermission`, or leave it to another client. The wait goes on
   * meanwhile; a listener that throws or rejects fails the wait.
   */
  onPermissionRequest?: PermissionRequestListener;
}

/**
 * What `onPermissionRequest` is told besides the request.
 *
 * @publicApi
 */
export interface PermissionRequestContext {
  sessionId: string;
  promptId: string;
  /**
   * Aborts once the request is no longer pending (answered by any client,
   * refused by the daemon's time-out, or ended with the turn) or the wait
   * ends: stop asking then. Rejecting with its abort is not a failure.
   */
  signal: AbortSignal;
}

/** @publicApi */
export type PermissionRequestListener = (request: PendingInteraction, context: PermissionRequestContext) => void | Promise<void>;

/**
 * Retry safety of `prompt()` and `createSession()` (docs/idempotency.md).
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
