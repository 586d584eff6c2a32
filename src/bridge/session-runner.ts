import { SessionClientLookup } from '../client-id/session-client-lookup.js';
import type { PromptBlock } from '../turns/rules/turn-fields.js';
import type { TurnOutcome } from '../turns/rules/turn-outcome.js';
import type { EnginePermissionOutcome, EnginePermissionRequest, EngineUpdate } from '../engines/agent-engine.js';
import type { RecordedIdempotency } from '../transcript/transcript-record.js';
import type { TurnUsage } from '../turns/rules/turn-usage.js';

/**
 * One prompt as the bridge dispatches it into a session.
 *
 * @publicApi
 */
export interface SessionPrompt {
  promptId: string;
  prompt: readonly PromptBlock[];
  promptText: string;
  startedAt: number;
  originatorClientId?: string;
  /** The `Idempotency-Key` it was admitted with; recorded on its user record. */
  idempotency?: RecordedIdempotency;
  /** Called with each agent update of the turn, as it streams (the bridge counts the turn's `activity`). */
  onUpdate?: (update: EngineUpdate) => void;
  /** Called with the turn's usage so far each time the agent reports more (the bridge shows it and keeps the budget). */
  onUsage?: (usage: TurnUsage) => void;
  /** Hands the agent's requests for approval to the runtime (docs/permissions.md); absent, the engine refuses them. */
  requestPermission?: (request: EnginePermissionRequest) => Promise<EnginePermissionOutcome>;
}

/**
 * What the bridge needs of the sessions it feeds — implemented by the
 * sessions layer, so the bridge depends on nothing there: the session lookup
 * (`hasSession`, `isClientRegistered`, declared once by
 * `SessionClientLookup`), and running a prompt.
 *
 * @publicApi
 */
export abstract class SessionRunner extends SessionClientLookup {
  /**
   * Runs one prompt in the live session to its outcome; never rejects by
   * contract. `undefined` when the session is not live.
   */
  abstract run(sessionId: string, prompt: SessionPrompt, signal: AbortSignal): Promise<TurnOutcome> | undefined;
}
