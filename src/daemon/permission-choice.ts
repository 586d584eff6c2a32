import type { PendingInteraction, PermissionOutcome } from '../client/index.js';
import { refusalOption } from '../permissions/permission-policy.js';
import type { TurnStatus } from '../client/index.js';
import { askedAction, printable } from './cli-output.js';

/** What a user of the command line said about a request. */
export type PermissionVerdict = 'allow' | 'deny';

/**
 * The outcome that says `verdict` to `request`: allow → its `allow_once`
 * option, never a wider grant (none offered: undefined, the request is left
 * for a client that can choose); deny → the option the `deny` policy picks
 * ({@link refusalOption}), else `cancelled`, which refuses as well.
 */
export function outcomeFor(request: PendingInteraction, verdict: PermissionVerdict): PermissionOutcome | undefined {
  const option = (kind: string) => request.options.find((candidate) => candidate.kind === kind);
  if (verdict === 'allow') {
    const allow = option('allow_once');
    return allow && { outcome: 'selected', optionId: allow.optionId };
  }
  const reject = refusalOption(request.options);
  return reject ? { outcome: 'selected', optionId: reject.optionId } : { outcome: 'cancelled' };
}

/** `--option a|b`: the options `request` offers, for one to be chosen by id. */
export function optionChoice(request: PendingInteraction): string {
  return `--option ${request.options.map((option) => printable(option.optionId, 80)).join('|')}`;
}

/** Where and as whom the command line called the daemon: what a command run from another shell must repeat. */
export interface CallerFlags {
  /** Given on the command line (a `TURNS_URL` of the shell reaches another shell too). */
  url?: string;
  /** The client id the command sent: under the `designated` policy only the prompt's originator may answer. */
  clientId?: string;
}

/**
 * The `permissions` command that answers `request` from another shell, as it
 * works: `--allow|--deny` when it offers `allow_once`, else `--option` with
 * the ids it offers; the URL and client id this command used (never a token).
 */
export function answerCommand(sessionId: string, request: PendingInteraction, caller: CallerFlags): string {
  const answer = outcomeFor(request, 'allow') ? '--allow|--deny' : optionChoice(request);
  const url = caller.url === undefined ? '' : ` --url ${printable(caller.url, 200)}`;
  const clientId = caller.clientId === undefined ? '' : ` --client-id ${printable(caller.clientId, 200)}`;
  return `nest-turn-status permissions ${printable(sessionId, 80)} ${printable(request.requestId, 80)} ${answer}${url}${clientId}`;
}

/**
 * What `status` and `turns` print of a turn that waits on approval: per
 * request, what the agent asks and the command that answers it.
 */
export function approvalLines(sessionId: string, status: TurnStatus, caller: CallerFlags): string[] {
  if (status.state !== 'running') return [];
  return (status.pendingInteractions ?? []).map(
    (request) => `waits on approval: the agent asks to ${askedAction(request)}; answer with: ${answerCommand(sessionId, request, caller)}`,
  );
}
