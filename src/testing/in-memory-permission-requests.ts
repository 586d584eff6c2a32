import type { EnginePermissionRequest } from '../engines/agent-engine.js';
import type { HookedTurn } from '../bridge/turn-hooks.js';
import { PermissionBroker, type LiveSessions, type PermissionEvents } from '../permissions/permission-broker.js';
import { isPermissionOutcome } from '../permissions/permission.dto.js';
import type { PendingInteraction, PendingInteractionOption } from '../turns/turn-status.js';
import type { PermissionOutcome } from '../wire/session-event.js';

/**
 * A request for approval raised with `InMemoryBridgeOverlay.askPermission`:
 * its id and the options it offers.
 *
 * @publicApi
 */
export interface InMemoryPermissionRequest {
  /** @default `r1`, `r2`, … */
  requestId?: string;
  /** @default allow once (`allow_once`) and reject (`reject_once`), each its kind as its id */
  options?: PendingInteractionOption[];
}

const DEFAULT_OPTIONS: PendingInteractionOption[] = [
  { optionId: 'allow_once', label: 'Allow once', kind: 'allow_once' },
  { optionId: 'reject_once', label: 'Reject', kind: 'reject_once' },
];

/** The kit has no event stream and writes no audit lines. */
const NO_EVENTS: PermissionEvents = { publish: () => undefined };
const QUIET = { log: () => undefined, warn: () => undefined };

/**
 * The in-memory bridge's requests for approval, held by the reference runtime's own {@link PermissionBroker} under
 * `ask` and `first-responder` (docs/decisions.md#the-testing-kit-drives-the-daemons-own-rules).
 */
export class InMemoryPermissionRequests {
  /** The runtime's broker: the in-memory bridge's turn hooks. */
  readonly broker: PermissionBroker;
  private nextRequest = 1;

  constructor(sessions: LiveSessions, now: () => number) {
    const options = { permissionPolicy: 'ask', permissionResponder: 'first-responder' } as const;
    this.broker = new PermissionBroker(sessions, NO_EVENTS, { now }, options, undefined, QUIET);
  }

  /** The running `turn`'s agent asks approval of `action`: `answered` settles with the first answer, or `cancelled` at its end. */
  ask(
    turn: HookedTurn,
    action: PendingInteraction['action'],
    request: InMemoryPermissionRequest,
  ): { requestId: string; answered: Promise<PermissionOutcome> } {
    const requestId = request.requestId ?? `r${this.nextRequest++}`;
    // The turn's end reaches the broker on the queue's transitions, as in the runtime: this signal never aborts.
    const answered = this.broker.ask(
      turn,
      agentRequest(action, request.options ?? DEFAULT_OPTIONS),
      new AbortController().signal,
      requestId,
    );
    return { requestId, answered };
  }

  /**
   * The first answer of a pending request of the session: false when it is not pending. Throws for an option it did
   * not offer, and for an outcome the answer routes would refuse (a test in plain JavaScript has no type to stop it).
   */
  answer(sessionId: string, requestId: string, outcome: PermissionOutcome): boolean {
    if (!isPermissionOutcome(outcome)) {
      throw new Error(`answerPermission: outcome must be {outcome:"selected", optionId} or {outcome:"cancelled"} (got ${shown(outcome)})`);
    }
    try {
      this.broker.answer(requestId, outcome, undefined, sessionId);
      return true;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === 'permission_not_found') return false;
      if (code === 'permission_option_not_offered' && outcome.outcome === 'selected') {
        throw new Error(`request ${requestId} did not offer option ${outcome.optionId}`);
      }
      throw error;
    }
  }
}

/** What an agent sends for `action` (ACP's tool call and options): the broker bounds it as it bounds an agent's. */
function agentRequest(action: PendingInteraction['action'], options: readonly PendingInteractionOption[]): EnginePermissionRequest {
  const { type, title, content, locations, input } = action;
  const toolCall: EnginePermissionRequest['toolCall'] = {
    ...(type !== undefined && { kind: type }),
    ...(title !== undefined && { title }),
    ...(content !== undefined && { content }),
    ...(locations !== undefined && { locations }),
    ...(input !== undefined && { rawInput: input }),
  };
  return {
    toolCall,
    options: options.map(({ optionId, label, kind }) => ({ optionId, kind, ...(label !== undefined && { name: label }) })),
  };
}

/** A value as a test wrote it, for an error message. */
function shown(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
