import type { EnginePermissionOutcome, EnginePermissionRequest } from '../engines/agent-engine.js';
import type { PendingInteraction } from '../turns/turn-status.js';
import type { TurnObserver } from './turn-transition.js';

/**
 * The prompt a running turn's question belongs to.
 *
 * @publicApi
 */
export interface HookedTurn {
  sessionId: string;
  promptId: string;
  originatorClientId?: string;
  /** The principal whose request admitted the prompt, for the audit. */
  principal?: string;
}

/**
 * The one plug-in of the queue (approval, today): what a running turn can be asked, and what it reports
 * (docs/decisions.md#approval-is-a-plug-in-of-the-queue). Registered with `PromptBridge.use`; none, and
 * the engine is handed no one to ask.
 *
 * @publicApi
 */
export interface TurnHooks {
  /** Refuses a prompt before it is admitted, by throwing its API error. */
  assertAdmissible(sessionId: string, originatorClientId: string | undefined): void;
  /** The running turn's agent asks approval of a tool call: settles once, `cancelled` when `signal` (the turn's) aborts. */
  ask(turn: HookedTurn, request: EnginePermissionRequest, signal: AbortSignal): Promise<EnginePermissionOutcome>;
  /** Sees each transition first: a turn's end resolves what it waits on before its terminal event is announced. */
  readonly observe: TurnObserver;
  /** What the running prompt waits on, as its live status shows it; none: `undefined`. */
  pendingOf(sessionId: string, promptId: string): readonly PendingInteraction[] | undefined;
  /** What every prompt of the session waits on, oldest first (a session's status and its idleness read it). */
  pendingInSession(sessionId: string): readonly PendingInteraction[];
  /** A client detached from the session: what waits on that client alone is given up. */
  clientLeft(sessionId: string, clientId: string): void;
  /** Calls `listener` when `pendingOf` changed for a prompt; the returned function stops it. */
  onChange(listener: (sessionId: string, promptId: string) => void): () => void;
}
