import { apiError } from '../../errors/api-errors.js';
import { TURN_STATES, type TurnState } from '../rules/turn-state.js';
import type { TurnPage, TurnStatus } from '../turn-status.js';

export type { TurnPage };

/** Bounds of `limit` on `GET /session/:id/turns`. @publicApi */
export const TURN_LIST_LIMITS = { defaultLimit: 20, maxLimit: 100 } as const;

/** Where a page ends: the position of its last turn in the list's order. */
export interface TurnPosition {
  at: number;
  promptId: string;
}

/** A list request, validated. */
export interface TurnListQuery {
  /** States kept, or `undefined` for all. */
  states?: ReadonlySet<TurnState>;
  limit: number;
  /** Turns strictly older than this position (from `pageToken`). */
  after?: TurnPosition;
}

/**
 * A turn's place in the list: its admission time, else (read from the
 * transcript, where admission is not kept) its start, else its end. It does
 * not move while the turn is queued, runs and settles, so a token that points
 * between two turns keeps pointing there: a turn settling between pages
 * neither repeats nor vanishes.
 */
export function turnPosition(status: TurnStatus & { promptId: string }): TurnPosition {
  const { queuedAt, startedAt, endedAt } = status as { queuedAt?: number; startedAt?: number; endedAt?: number };
  return { at: queuedAt ?? startedAt ?? endedAt ?? 0, promptId: status.promptId };
}

/** Newest first; the promptId breaks ties in the same millisecond. */
function compareNewestFirst(a: TurnPosition, b: TurnPosition): number {
  if (a.at !== b.at) return b.at - a.at;
  return a.promptId < b.promptId ? 1 : a.promptId > b.promptId ? -1 : 0;
}

/** The filter as the token remembers it: a page token is valid only with the filter it was made for. */
function filterKey(states: ReadonlySet<TurnState> | undefined): string {
  return states ? TURN_STATES.filter((state) => states.has(state)).join(',') : '';
}

/** The opaque `pageToken` of a position (base64url JSON: version, position, filter). */
export function encodePageToken(position: TurnPosition, states: ReadonlySet<TurnState> | undefined): string {
  return Buffer.from(JSON.stringify([1, position.at, position.promptId, filterKey(states)])).toString('base64url');
}

function decodePageToken(sessionId: string, token: string, states: ReadonlySet<TurnState> | undefined): TurnPosition {
  let parsed: unknown;
  try {
    parsed = token.length <= 1024 && /^[A-Za-z0-9_-]+$/.test(token) ? JSON.parse(Buffer.from(token, 'base64url').toString()) : undefined;
  } catch {
    parsed = undefined;
  }
  if (Array.isArray(parsed) && parsed.length === 4) {
    const [version, at, promptId, filter] = parsed as unknown[];
    if (version === 1 && Number.isSafeInteger(at) && typeof promptId === 'string' && filter === filterKey(states)) {
      return { at: at as number, promptId };
    }
  }
  throw apiError('invalid_page_token', { sessionId });
}

const first = (value: unknown): unknown => (Array.isArray(value) ? value[0] : value);

/**
 * Reads `?state=&limit=&pageToken=`: `state` a comma list of the six
 * states (`400 invalid_turn_state` otherwise), `limit` an integer from 1 to
 * 100 (default 20; `400 invalid_limit`), `pageToken` one this list gave for
 * the same filter (`400 invalid_page_token`).
 */
export function parseTurnListQuery(sessionId: string, query: { state?: unknown; limit?: unknown; pageToken?: unknown }): TurnListQuery {
  let states: Set<TurnState> | undefined;
  const state = first(query.state);
  if (state !== undefined) {
    const names = typeof state === 'string' ? state.split(',').map((name) => name.trim()) : [];
    if (names.length === 0 || !names.every((name): name is TurnState => (TURN_STATES as readonly string[]).includes(name))) {
      throw apiError('invalid_turn_state', { state: typeof state === 'string' ? state.slice(0, 256) : '' });
    }
    states = new Set(names);
  }
  let limit: number = TURN_LIST_LIMITS.defaultLimit;
  const rawLimit = first(query.limit);
  if (rawLimit !== undefined) {
    limit = typeof rawLimit === 'string' && /^\d{1,3}$/.test(rawLimit) ? Number(rawLimit) : NaN;
    if (!(limit >= 1 && limit <= TURN_LIST_LIMITS.maxLimit)) throw apiError('invalid_limit', { maxLimit: TURN_LIST_LIMITS.maxLimit });
  }
  const token = first(query.pageToken);
  if (token === undefined || token === '') return { states, limit };
  if (typeof token !== 'string') throw apiError('invalid_page_token', { sessionId });
  return { states, limit, after: decodePageToken(sessionId, token, states) };
}

/**
 * One page of `turns` (one status per prompt, in any order): filtered by
 * state, ordered newest first by {@link turnPosition}, starting after the
 * query's position, at most `limit` long, with a token when more follow.
 */
export function pageTurns(turns: readonly (TurnStatus & { promptId: string })[], query: TurnListQuery): TurnPage {
  const { states, after, limit } = query;
  const kept = turns
    .filter((status) => !states || states.has(status.state))
    .map((status) => ({ status, position: turnPosition(status) }))
    .filter(({ position }) => !after || compareNewestFirst(after, position) < 0)
    .sort((a, b) => compareNewestFirst(a.position, b.position));
  const page = kept.slice(0, limit);
  const last = page.at(-1);
  return kept.length > limit && last
    ? { turns: page.map(({ status }) => status), nextPageToken: encodePageToken(last.position, states) }
    : { turns: page.map(({ status }) => status) };
}
