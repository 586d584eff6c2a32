import type { ApiErrorCode } from '../errors/error-catalogue.js';
import type { TurnStatus } from '../turns/turn-status.js';

/**
 * The `code` of an error body: one of the daemon's catalogue (docs/routes.md,
 * Errors), or `http_<status>` for a framework error it has no code for. A
 * daemon of another version or make may send a code outside these.
 *
 * @publicApi
 */
export type TurnsErrorCode = ApiErrorCode | `http_${number}`;

/**
 * A route answered with an error: its HTTP status, the `code` of its
 * `{error, code}` body (if any) and the whole body (its JSON, else its text).
 *
 * @publicApi
 */
export class TurnsApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: TurnsErrorCode | undefined,
    readonly body: unknown,
  ) {
    super(
      `${status}${code ? ` ${code}` : ''}: ${typeof (body as { error?: unknown })?.error === 'string' ? (body as { error: string }).error : 'request failed'}`,
    );
    this.name = 'TurnsApiError';
  }

  /** The error of an answer with this status and (parsed) body. */
  static of(status: number, body: unknown): TurnsApiError {
    const code = (body as { code?: unknown } | undefined)?.code;
    return new TurnsApiError(status, typeof code === 'string' ? (code as TurnsErrorCode) : undefined, body);
  }
}

/**
 * A prompt seen before now answers 404: it left every bounded window (live
 * queue, in-memory overlay, transcript scan window). Its outcome is no
 * longer known to the daemon; it is not a new outcome.
 *
 * @publicApi
 */
export class TurnWindowExpiredError extends Error {
  constructor(
    readonly sessionId: string,
    readonly promptId: string,
    /** The last status seen before the window moved on. */
    readonly lastStatus: TurnStatus,
  ) {
    super(`prompt ${promptId} left the daemon's window (last seen ${lastStatus.state})`);
    this.name = 'TurnWindowExpiredError';
  }
}

/**
 * `waitForTurn` ran out of time before the prompt settled.
 *
 * @publicApi
 */
export class TurnWaitTimeoutError extends Error {
  constructor(
    readonly sessionId: string,
    readonly promptId: string,
    /** The last status seen (queued or running), if any. */
    readonly lastStatus: TurnStatus | undefined,
  ) {
    super(`prompt ${promptId} did not settle in time${lastStatus ? ` (last seen ${lastStatus.state})` : ''}`);
    this.name = 'TurnWaitTimeoutError';
  }
}

/** A URL as it may be shown: without the user and password it may carry. */
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.href;
  } catch {
    return url;
  }
}

/**
 * The daemon could not be reached: refused, not resolved, reset… `url` is
 * the request's (credentials stripped), `code` the system error's code when
 * the platform gives one (`ECONNREFUSED`), `cause` what `fetch` threw. A
 * `TypeError`, as that rejection is, so code catching one still does.
 *
 * @publicApi
 */
export class TurnsConnectionError extends TypeError {
  /** The system error code (`ECONNREFUSED`, `ENOTFOUND`, …), when known. */
  readonly code: string | undefined;
  readonly url: string;

  constructor(url: string, cause: unknown) {
    const reason = (cause as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
    const code = typeof reason?.code === 'string' ? reason.code : undefined;
    const detail = typeof reason?.message === 'string' ? reason.message : code;
    const shown = shownUrl(url);
    super(`cannot reach ${shown}: ${(cause as Error | undefined)?.message ?? String(cause)}${detail ? ` (${detail})` : ''}`, { cause });
    this.name = 'TurnsConnectionError';
    this.code = code;
    this.url = shown;
  }
}
