import { type EnginePermissionOutcome, type EnginePermissionRequest, PERMISSION_CANCELLED } from '../engines/agent-engine.js';
import type { PermissionDecider } from '../telemetry/turns-channels.js';
import type { PendingInteraction } from '../turns/turn-status.js';
import type { PermissionOutcome } from '../wire/session-event.js';

type Options = EnginePermissionRequest['options'];

/** Who decides a request for approval (docs/permissions.md): the session's clients, or the operator's standing answer. */
export type PermissionPolicy = 'ask' | 'allow' | 'deny';

/** Under `ask`, who may answer: any client of the session (the first answer wins), or only the prompt's originator. */
export type PermissionResponder = 'first-responder' | 'designated';

const selected = (optionId: string): EnginePermissionOutcome => ({ outcome: 'selected', optionId });
/** `allow`: once where the agent offers that, else always; `cancelled` when it offers no allowing option. */
export function allowingOutcome(options: Options): EnginePermissionOutcome {
  const allow = options.find((o) => o.kind === 'allow_once') ?? options.find((o) => o.kind === 'allow_always');
  return allow ? selected(allow.optionId) : PERMISSION_CANCELLED;
}

/**
 * `deny`, and a time-out: the tool call is refused once (the turn goes on
 * without it), else always; `cancelled` when the agent offers no refusal.
 */
export function refusingOutcome(options: Options): EnginePermissionOutcome {
  const reject = refusalOption(options);
  return reject ? selected(reject.optionId) : PERMISSION_CANCELLED;
}

/** The option that refuses a tool call: `reject_once`, else `reject_always`; none offered, `undefined` (answer `cancelled`). */
export function refusalOption<O extends { kind: string }>(options: readonly O[]): O | undefined {
  return options.find((o) => o.kind === 'reject_once') ?? options.find((o) => o.kind === 'reject_always');
}

/** At most this many requests of a session are held at once; one more is answered `cancelled` (docs/permissions.md bounds each item). */
export const MAX_PENDING_PER_SESSION = 16;

/**
 * A request decided as it is asked, without a client: `cancelled` when its
 * turn has ended (whatever the policy), the `allow`/`deny` policy's answer,
 * or `cancelled` when its session holds {@link MAX_PENDING_PER_SESSION}
 * already; `undefined` when it is held for a client's answer.
 */
export function decisionAtOnce(
  policy: PermissionPolicy,
  options: Options,
  turn: { ended: boolean; pendingInSession: number },
): { outcome: EnginePermissionOutcome; decidedBy: PermissionDecider } | undefined {
  if (turn.ended) return { outcome: PERMISSION_CANCELLED, decidedBy: 'turn_end' };
  if (policy === 'allow') return { outcome: allowingOutcome(options), decidedBy: 'policy' };
  if (policy === 'deny') return { outcome: refusingOutcome(options), decidedBy: 'policy' };
  if (turn.pendingInSession >= MAX_PENDING_PER_SESSION) return { outcome: PERMISSION_CANCELLED, decidedBy: 'limit' };
  return undefined;
}

/** True when `outcome` is `cancelled` or selects one of the options `item` offers (anything else is `permission_option_not_offered`). */
export function isOffered(item: Pick<PendingInteraction, 'options'>, outcome: PermissionOutcome): boolean {
  return outcome.outcome === 'cancelled' || item.options.some((option) => option.optionId === outcome.optionId);
}

/** True when `clientId` may answer a request of a prompt admitted by `originatorClientId` (absent: anonymous). */
export function mayAnswer(responder: PermissionResponder, originatorClientId: string | undefined, clientId: string | undefined): boolean {
  return responder === 'first-responder' || originatorClientId === clientId;
}

/**
 * True when a prompt must carry a client id to be admitted: under `ask` with
 * the `designated` responder, nobody could ever answer its requests otherwise.
 */
export function needsClientId(policy: PermissionPolicy, responder: PermissionResponder): boolean {
  return policy === 'ask' && responder === 'designated';
}
