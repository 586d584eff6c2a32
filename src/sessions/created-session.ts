import type { Clock } from '../common/clock.js';
import type { CreatedSession } from '../wire/wire-types.js';
import type { SessionRegistry } from './session-registry.js';
import type { Session } from './session.js';

/** A session as a create, load or fork answers it, with a client id issued for the caller. */
export function createdSessionOf(registry: SessionRegistry, clock: Clock, session: Session, attached: boolean): CreatedSession {
  // A client joining is a sign of life, as a heartbeat is (docs/operating.md#idle-sessions).
  if (attached) registry.heartbeat(session.id, clock.now());
  return {
    sessionId: session.id,
    workspaceCwd: session.workspace.cwd,
    attached,
    clientId: registry.issueClientId(session.id),
    createdAt: new Date(session.createdAt).toISOString(),
  };
}
