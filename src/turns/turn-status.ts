import type { TurnError } from './rules/normalize-turn-error.js';
import type { RESULT_TEXT_TRUNCATED } from './rules/limits.js';
import type { TurnTokens, TurnUsage } from './rules/turn-usage.js';
import { isTerminalState, TERMINAL_TURN_STATES, TURN_STATES, type TerminalTurnState, type TurnState } from './rules/turn-state.js';

export type { TurnError, TurnTokens, TurnUsage };
export { TURN_STATES, TERMINAL_TURN_STATES, isTerminalState, type TurnState, type TerminalTurnState };

/** Fields every status of an admitted prompt may carry. */
interface PromptFields {
  sessionId: string;
  promptId: string;
  /** First non-empty text block, at most 32,768 UTF-16 code units. */
  promptText?: string;
  promptTextTruncated?: true;
  /** The client id that admitted the prompt (held as issued; a reader other than that client is shown its pseudonym). */
  originatorClientId?: string;
}

/** A session that has had no turn. @publicApi */
export interface IdleTurnStatus {
  sessionId: string;
  state: 'idle';
}

/** Admitted, waiting in the FIFO. @publicApi */
export interface QueuedTurnStatus extends PromptFields {
  state: 'queued';
  /** Admission time, epoch ms. */
  queuedAt: number;
}

/**
 * What the agent has done so far in a running turn, counted from its updates:
 * a busy agent's `lastEventAt` moves, a stuck one's does not. Refreshed at
 * most once a second, so it changes the status's ETag at most that often.
 *
 * @publicApi
 */
export interface TurnActivity {
  /** Agent updates since the turn started (message, thought and tool chunks). */
  events: number;
  /** Tool calls the agent started. */
  toolCalls: number;
  /** Time of the last agent update counted, epoch ms. */
  lastEventAt: number;
  /** Title of the last tool call, at most 256 UTF-16 code units. */
  lastTool?: string;
}

/**
 * One option a pending request offers; `kind` is ACP's (`allow_once`,
 * `allow_always`, `reject_once`, `reject_always`).
 *
 * @publicApi
 */
export interface PendingInteractionOption {
  optionId: string;
  label?: string;
  kind: string;
}

/**
 * A tool call the agent waits on a client's approval for (docs/permissions.md): the
 * peer's `pendingInteractions` item. Bounded: `title` at most 4,096 UTF-16
 * code units, the item as JSON at most 16 KiB (a larger `content` or `input`
 * is dropped, and `truncated` says so).
 *
 * @publicApi
 */
export interface PendingInteraction {
  requestId: string;
  kind: 'permission';
  /** ISO 8601. */
  createdAt: string;
  action: { type?: string; title?: string; content?: unknown; locations?: unknown; input?: unknown };
  options: PendingInteractionOption[];
  truncated?: true;
}

/** Dispatched into the session, not settled yet. @publicApi */
export interface RunningTurnStatus extends PromptFields {
  state: 'running';
  queuedAt: number;
  /** Dispatch time, epoch ms. */
  startedAt: number;
  /** Present once the agent has sent an update. */
  activity?: TurnActivity;
  /** Present while the agent waits on approval of a tool call (docs/permissions.md); the state stays `running`. */
  pendingInteractions?: PendingInteraction[];
  /** The tokens (and cost) the agent reported so far; refreshed as `activity` is. Absent until it reports any. */
  usage?: TurnUsage;
}

/** Fields of every settled status. */
interface SettledFields extends PromptFields {
  /** Admission time; known only while the status is in memory (absent when read from the transcript). */
  queuedAt?: number;
  /** Present when the prompt had started. */
  startedAt?: number;
  /** Terminal time, epoch ms. */
  endedAt: number;
  /** e.g. `end_turn`, `cancelled`, `max_tokens`. */
  stopReason?: string;
  /** Raw final main answer, at most 32,768 UTF-16 code units. */
  resultText?: string;
  resultTruncated?: true;
  /** Present exactly when `resultTruncated`. */
  resultCode?: typeof RESULT_TEXT_TRUNCATED;
  /** The tokens (and cost) of the turn's model responses as the agent reported them; absent when it reported none. */
  usage?: TurnUsage;
}

/** @publicApi */
export interface CompletedTurnStatus extends SettledFields {
  state: 'completed';
}

/** @publicApi */
export interface CancelledTurnStatus extends SettledFields {
  state: 'cancelled';
}

/** @publicApi */
export interface ErrorTurnStatus extends SettledFields {
  state: 'error';
  error: TurnError;
}

/** A terminal status. @publicApi */
export type SettledTurnStatus = CompletedTurnStatus | CancelledTurnStatus | ErrorTurnStatus;

/** A queued or running status. @publicApi */
export type LiveTurnStatus = QueuedTurnStatus | RunningTurnStatus;

/**
 * The answer of both turn routes, discriminated by `state`: narrowing on it
 * gives the fields of that state. Optional fields are absent, never `null`;
 * flags are present only when `true`; timestamps are epoch ms.
 *
 * @publicApi
 */
export type TurnStatus = IdleTurnStatus | LiveTurnStatus | SettledTurnStatus;

/**
 * One page of `GET /session/:id/turns`: a session's turns, newest first,
 * each as the exact route answers it.
 *
 * @publicApi
 */
export interface TurnPage {
  turns: TurnStatus[];
  /** Present when older turns follow: pass it back as `pageToken`. */
  nextPageToken?: string;
}

/** True for a queued or running status. @publicApi */
export function isLiveStatus(status: TurnStatus): status is LiveTurnStatus {
  return status.state === 'queued' || status.state === 'running';
}

/** True for a terminal status. @publicApi */
export function isSettledStatus(status: TurnStatus): status is SettledTurnStatus {
  return isTerminalState(status.state);
}

/** Drops keys whose value is `undefined`, so optional fields are truly absent. */
export function compactStatus<T extends object>(status: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(status)) if (value !== undefined) out[key] = value;
  return out as T;
}
