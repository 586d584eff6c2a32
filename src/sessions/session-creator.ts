import { randomUUID } from 'node:crypto';
import type { Clock } from '../common/clock.js';
import { apiError } from '../errors/api-errors.js';
import type { Principal } from '../http/request-principal.js';
import type { ChatRecordingService } from '../transcript/chat-recording.service.js';
import { SESSION_ID_PATTERN } from '../turns/rules/limits.js';
import type { CreatedSession } from '../wire/wire-types.js';
import { createdSessionOf } from './created-session.js';
import { idTaken, type SessionOwnerFiles } from './session-owner-files.js';
import type { SessionRegistry } from './session-registry.js';
import type { SessionStarts } from './session-starts.js';
import { workspaceAt, type Workspace } from './workspace.js';

/** What a create reads: the live sessions, the owner records, the starts, and the workspaces (the first is primary). */
export interface CreateParts {
  registry: SessionRegistry;
  owners: SessionOwnerFiles;
  starts: SessionStarts;
  recorder: ChatRecordingService;
  clock: Clock;
  workspaces: { readonly workspaces: readonly Workspace[]; readonly primary: Workspace };
}

/** The create-or-attach path of `POST /session`. */
export class SessionCreator {
  constructor(private readonly parts: CreateParts) {}

  /** `POST /session` by `principal`, who owns what it creates; `single` scope attaches to that principal's sessions only. */
  async create(
    request: { cwd?: string; sessionScope?: 'single' | 'thread'; sessionId?: string },
    principal?: Principal,
  ): Promise<CreatedSession> {
    const { registry, owners, starts } = this.parts;
    const workspace = request.cwd === undefined ? this.parts.workspaces.primary : this.workspaceOf(request.cwd);
    if (request.sessionId !== undefined && !SESSION_ID_PATTERN.test(request.sessionId)) {
      throw apiError('invalid_session_id');
    }
    const existing =
      request.sessionId !== undefined
        ? registry.get(request.sessionId)
        : (request.sessionScope ?? 'single') === 'single'
          ? registry.findByWorkspace(workspace.id, principal?.name)
          : undefined;
    // Another principal's id: never attached to, and never a second session of that id.
    if (existing && !registry.mayAccess(existing.id, principal)) throw idTaken();
    if (existing) {
      if (existing.workspace.id !== workspace.id) {
        throw apiError('workspace_mismatch', { sessionId: existing.id }, { message: 'Session belongs to another workspace' });
      }
      return createdSessionOf(registry, this.parts.clock, existing, true);
    }
    const owner =
      request.sessionId === undefined ? principal?.name : await owners.ownerForCreate(request.sessionId, workspace.cwd, principal);
    const sessionId = request.sessionId ?? randomUUID();
    const session = await starts.start(sessionId, {
      workspace,
      resume: false,
      owner,
      prepare: () => this.attachNew(sessionId, workspace, owner),
    });
    // Re-read after the await: a create of the same id by another principal may have started it first.
    if (!registry.mayAccess(session.id, principal)) throw idTaken();
    return createdSessionOf(registry, this.parts.clock, session, false);
  }

  /** A new session's owner is on disk before it is live (a failed write fails the create); then its transcript is attached. */
  private async attachNew(sessionId: string, workspace: Workspace, owner: string | undefined): Promise<string[]> {
    await this.parts.owners.write(sessionId, workspace.cwd, owner);
    await this.parts.recorder.attach(sessionId, workspace.cwd);
    return [];
  }

  private workspaceOf(cwd: string): Workspace {
    const workspace = workspaceAt(this.parts.workspaces.workspaces, cwd);
    if (!workspace) throw apiError('workspace_mismatch', { cwd });
    return workspace;
  }
}
