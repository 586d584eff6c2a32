import type { PermissionOutcome, TurnsClient } from '../client/index.js';
import { permissionLine, printable } from './cli-output.js';
import { optionChoice, outcomeFor } from './permission-choice.js';

/** The flags of `permissions <session> [request]` that decide. */
export interface PermissionFlags {
  allow?: boolean;
  deny?: boolean;
  option?: string;
  cancel?: boolean;
  json?: boolean;
}

/** What the flags say to answer, without looking at the request; `allow`/`deny` need its options. */
function answerOf(flags: PermissionFlags): PermissionOutcome | 'allow' | 'deny' | undefined {
  if (flags.allow) return 'allow';
  if (flags.deny) return 'deny';
  if (flags.option !== undefined) return { outcome: 'selected', optionId: flags.option };
  if (flags.cancel) return { outcome: 'cancelled' };
  return undefined;
}

/**
 * `permissions <session>`: the session's pending requests, a line (or a JSON
 * line) each; none: nothing on stdout (a script reads an empty list), a line
 * on stderr when it is a terminal. `permissions <session> <request>
 * --allow|--deny|--option <id>|--cancel`: answers one and prints its id and
 * the option chosen. Resolves with an error message for the caller to report
 * as a usage or not-found error.
 */
export async function runPermissionsCommand(
  turns: TurnsClient,
  sessionId: string,
  requestId: string | undefined,
  flags: PermissionFlags,
  { stdout, stderr }: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream & { isTTY?: boolean } },
): Promise<{ usage: string } | { notFound: string } | undefined> {
  const answer = answerOf(flags);
  if (requestId === undefined) {
    if (answer !== undefined) return { usage: 'error: name the request to answer: permissions <session> <request> --allow' };
    const pending = await turns.listPermissionRequests(sessionId);
    for (const request of pending) stdout.write(`${flags.json ? JSON.stringify(request) : permissionLine(request)}\n`);
    if (pending.length === 0 && stderr.isTTY) stderr.write('no pending permission requests\n');
    return undefined;
  }
  if (answer === undefined) return { usage: 'error: answer with --allow, --deny, --option <id> or --cancel' };
  let outcome: PermissionOutcome | undefined;
  if (typeof answer === 'object') outcome = answer;
  else {
    const request = (await turns.listPermissionRequests(sessionId)).find((pending) => pending.requestId === requestId);
    if (!request) return { notFound: `no pending permission request ${printable(requestId, 80)} on session ${printable(sessionId, 80)}` };
    outcome = outcomeFor(request, answer);
    if (!outcome)
      return { usage: `error: request ${printable(requestId, 80)} offers no allow_once option; choose one with ${optionChoice(request)}` };
  }
  await turns.respondToPermission(sessionId, requestId, outcome);
  stdout.write(`${requestId} ${outcome.outcome === 'selected' ? outcome.optionId : 'cancelled'}\n`);
  return undefined;
}
