import type { EnginePermissionOutcome, EnginePermissionRequest } from '../engines/agent-engine.js';
import type { PendingInteraction } from '../turns/turn-status.js';
import type { PermissionOutcome } from '../wire/session-event.js';

type Options = EnginePermissionRequest['options'];

/** Who decides a request for approval (SPEC §21): the session's clients, or the operator's standing answer. */
export type PermissionPolicy = 'ask' | 'allow' | 'deny';

/** Under `ask`, who may answer: any client of the session (the first answer wins), or only the prompt's originator. */
export type PermissionResponder = 'first-responder' | 'designated';

const selected = (optionId: string): EnginePermissionOutcome => ({ outcome: 'selected', optionId });
const CANCELLED: EnginePermissionOutcome = { outcome: 'cancelled' };

/** `allow`: once where the agent offers that, else always; `cancelled` when it offers no allowing option. */
export function allowingOutcome(options: Options): EnginePermissionOutcome {
  const allow = options.find((o) => o.kind === 'allow_once') ?? options.find((o) => o.kind === 'allow_always');
  return allow ? selected(allow.optionId) : CANCELLED;
}

/**
 * `deny`, and a time-out: the tool call is refused once (the turn goes on
 * without it), else always; `cancelled` when the agent offers no refusal.
 */
export function refusingOutcome(options: Options): EnginePermissionOutcome {
  const reject = refusalOption(options);
  return reject ? selected(reject.optionId) : CANCELLED;
}

/** The option that refuses a tool call: `reject_once`, else `reject_always`; none offered, `undefined` (answer `cancelled`). */
export function refusalOption<O extends { kind: string }>(options: readonly O[]): O | undefined {
  return options.find((o) => o.kind === 'reject_once') ?? options.find((o) => o.kind === 'reject_always');
}

/** True when `outcome` is `cancelled` or selects one of the options `item` offers (anything else is `permission_option_not_offered`). */
export function isOffered(item: Pick<PendingInteraction, 'options'>, outcome: PermissionOutcome): boolean {
  return outcome.outcome === 'cancelled' || item.options.some((option) => option.optionId === outcome.optionId);
}

/** True when `clientId` may answer a request of a prompt admitted by `originatorClientId` (absent: anonymous). */
export function mayAnswer(responder: PermissionResponder, originatorClientId: string | undefined, clientId: string | undefined): boolean {
  return responder === 'first-responder' || originatorClientId === clientId;
}
