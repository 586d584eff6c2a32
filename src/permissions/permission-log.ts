import { clientPseudonym } from '../client-id/client-pseudonym.js';
import type { EnginePermissionOutcome } from '../engines/agent-engine.js';
import type { LoggerService } from '@nestjs/common';
import { TURNS_CHANNELS, type PermissionDecider, type PermissionOutcomeKind } from '../telemetry/turns-channels.js';
import { truncateCodeUnits } from '../turns/rules/truncate-code-units.js';

/** Where the broker writes its audit lines: Nest's logger in the runtime; the testing kit's stays quiet. */
export type AuditLog = Pick<LoggerService, 'log' | 'warn'>;

/** The broker's audit log, when not Nest's `Permissions` logger. */
export const PERMISSION_AUDIT_LOG = Symbol('PERMISSION_AUDIT_LOG');

/** A title in a log line, at most this many code units (the item itself keeps 4,096). */
const LOGGED_TITLE = 256;

const quoted = (title: string) => JSON.stringify(truncateCodeUnits(title, LOGGED_TITLE).text);
/** An option id as the agent named it: bare when plain, else quoted, so no id can break or forge a line. */
const optionOf = (optionId: string) => (/^[\w.:-]{1,256}$/.test(optionId) ? optionId : quoted(optionId));

/** An allowing or refusing answer by the kind of the option chosen (`selected` for any other kind), or `cancelled`. */
export function outcomeKind(
  outcome: EnginePermissionOutcome,
  options: readonly { optionId: string; kind: string }[],
): PermissionOutcomeKind {
  if (outcome.outcome === 'cancelled') return 'cancelled';
  const kind = options.find((option) => option.optionId === outcome.optionId)?.kind ?? '';
  // The agent got that option whatever its kind: a kind ACP does not name is no cancel.
  return kind.startsWith('allow') ? 'allowed' : kind.startsWith('reject') ? 'rejected' : 'selected';
}

/**
 * A client in an audit line: its pseudonym (never its id), or `anonymous`,
 * and the principal its request proved, when there was one.
 */
export interface AuditedClient {
  /** The client's pseudonym (docs/security.md#client-ids-are-capabilities). */
  pseudonym?: string;
  principal?: string;
}

/** A client as the audit names it: its pseudonym (never its id), and its principal when any. */
export function auditedClient(sessionId: string, clientId: string | undefined, principal: string | undefined): AuditedClient {
  return {
    ...(clientId !== undefined && { pseudonym: clientPseudonym(sessionId, clientId) }),
    ...(principal !== undefined && { principal }),
  };
}

/** A name as given: bare when plain, else quoted, so no name can break or forge a line. */
const nameOf = (name: string) => (/^[\w.:@~-]{1,256}$/.test(name) ? name : quoted(name));

const clientOf = ({ pseudonym, principal }: AuditedClient) =>
  `client ${pseudonym ?? 'anonymous'}${principal === undefined ? '' : ` of principal ${nameOf(principal)}`}`;

/** The audit line of a request (docs/permissions.md#audit): its id, the tool's title, and whose prompt; never the tool's input. */
export function requestLine(requestId: string, title: string, promptId: string, originator: AuditedClient = {}): string {
  return `permission ${requestId} requested: ${quoted(title)} (prompt ${promptId}, ${clientOf(originator)})`;
}

/** The audit line of a decision: the request, the tool's title, the outcome and who decided (a client by its pseudonym). */
export function decisionLine(
  requestId: string,
  title: string,
  outcome: EnginePermissionOutcome,
  kind: PermissionOutcomeKind,
  decidedBy: PermissionDecider,
  responder: AuditedClient = {},
): string {
  const option = outcome.outcome === 'selected' ? ` (${optionOf(outcome.optionId)})` : '';
  const who = decidedBy === 'client' ? clientOf(responder) : decidedBy.replace('_', ' ');
  return `permission ${requestId} ${kind}${option}: ${quoted(title)}, decided by ${who}`;
}

/** Who answered: the client id its request carried, and the principal it proved. */
export type Answerer = { clientId?: string; principal?: string };

/** A request as its decision's audit line names it (`options`: every option the agent offered). */
export interface AuditedRequest {
  sessionId: string;
  requestId: string;
  title: string;
  options: readonly { optionId: string; kind: string }[];
}

/** Logs a decision's audit line (a client by its pseudonym and principal, never its id) and counts it on the metrics' channel. */
export function auditDecision(
  logger: AuditLog,
  request: AuditedRequest,
  outcome: EnginePermissionOutcome,
  decidedBy: PermissionDecider,
  by: Answerer = {},
): void {
  const kind = outcomeKind(outcome, request.options);
  const responder = auditedClient(request.sessionId, by.clientId, by.principal);
  logger.log(decisionLine(request.requestId, request.title, outcome, kind, decidedBy, responder));
  TURNS_CHANNELS.permissionDecided.publish({ outcome: kind, decidedBy });
}
