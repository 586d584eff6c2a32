import { HttpStatus, Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { isAbsolute, resolve } from 'node:path';
import { ApiException } from '../common/api-exception.js';
import { Clock } from '../common/clock.js';
import { SESSION_ID_PATTERN } from '../common/limits.js';
import { PromptBridge } from '../bridge/prompt-bridge.js';
import { AgentEngine } from '../engines/agent-engine.js';
import { SessionEventBus } from '../events/session-event-bus.js';
import { ChatRecordingService } from '../transcript/chat-recording.service.js';
import { RUNTIME_WORKSPACES, type RuntimeWorkspaces } from './runtime-options.js';
import { SessionRegistry } from './session-registry.js';
import { Session } from './session.js';
import type { Workspace } from './workspace.js';

export interface CreatedSession {
  sessionId: string;
  workspaceCwd: string;
  attached: boolean;
  clientId: string;
  createdAt: string;
}

/** Mints a client id for one session and registers it there. */
function issueClientId(session: Session): string {
  const clientId = `client_${randomUUID()}`;
  session.clients.add(clientId);
  return clientId;
}

/**
 * Session lifecycle: create or attach, load after a restart, close, rewind and
 * fork. Each session belongs to one workspace; nothing here falls back from an
 * unknown workspace to the primary one.
 */
@Injectable()
export class SessionsService implements OnApplicationShutdown {
  private readonly starting = new Map<string, Promise<Session>>();

  constructor(
    private readonly registry: SessionRegistry,
    private readonly bridge: PromptBridge,
    private readonly recorder: ChatRecordingService,
    private readonly engine: AgentEngine,
    private readonly events: SessionEventBus,
    private readonly clock: Clock,
    @Inject(RUNTIME_WORKSPACES) private readonly runtime: RuntimeWorkspaces,
  ) {}

  get workspaces(): Workspace[] {
    return this.runtime.workspaces;
  }

  get primary(): Workspace {
    return this.runtime.workspaces[0]!;
  }

  async create(request: { cwd?: string; sessionScope?: 'single' | 'thread'; sessionId?: string }): Promise<CreatedSession> {
    const workspace = request.cwd === undefined ? this.primary : this.workspaceOf(request.cwd);
    if (request.sessionId !== undefined && !SESSION_ID_PATTERN.test(request.sessionId)) {
      throw ApiException.badRequest('invalid_session_id', 'sessionId must be a UUID');
    }
    const existing = request.sessionId !== undefined
      ? this.registry.get(request.sessionId)
      : (request.sessionScope ?? 'single') === 'single'
        ? this.registry.findByWorkspace(workspace.id)
        : undefined;
    if (existing) {
      if (existing.workspace.id !== workspace.id) {
        throw ApiException.badRequest('workspace_mismatch', 'Session belongs to another workspace', { sessionId: existing.id });
      }
      return this.describe(existing, true);
    }
    const session = await this.start(request.sessionId ?? randomUUID(), workspace, false);
    return this.describe(session, false);
  }

  /** Makes a persisted session live again; 404 when its workspace has no transcript for it. */
  async load(sessionId: string): Promise<{ sessionId: string; workspaceCwd: string; clientId: string }> {
    let session = this.registry.get(sessionId);
    if (!session) {
      const workspace = SESSION_ID_PATTERN.test(sessionId) ? await this.workspaceWithTranscript(sessionId) : undefined;
      if (!workspace) throw ApiException.sessionNotFound(sessionId);
      session = await this.start(sessionId, workspace, true);
    }
    return { sessionId: session.id, workspaceCwd: session.workspace.cwd, clientId: issueClientId(session) };
  }

  async close(sessionId: string): Promise<void> {
    const session = this.require(sessionId);
    this.registry.remove(sessionId);
    this.bridge.closeSession(sessionId);
    this.events.close(sessionId);
    await this.recorder.detach(sessionId);
    await session.close();
  }

  async rewind(sessionId: string, promptId: string): Promise<void> {
    const session = this.require(sessionId);
    if (this.bridge.hasPending(sessionId) || session.rewinding) {
      throw new ApiException(HttpStatus.CONFLICT, 'session_busy', 'A prompt is queued or running, or a rewind is in progress', { sessionId });
    }
    // Admissions wait out the rewind, so no prompt lands on the branch being left.
    session.rewinding = true;
    try {
      const rewound = await this.recorder.rewind(sessionId, promptId);
      // A failed rewind keeps the overlay; only a successful one clears it.
      if (!rewound) throw ApiException.promptNotFound(sessionId, promptId);
    } finally {
      session.rewinding = false;
    }
    this.bridge.rewound(sessionId);
    this.events.publish(sessionId, 'session_rewound', { promptId, data: { promptId } });
  }

  async fork(sessionId: string): Promise<{ sessionId: string; clientId: string }> {
    const source = this.require(sessionId);
    const forkId = randomUUID();
    await this.recorder.fork(sessionId, forkId, source.workspace.cwd);
    const session = this.addSession(forkId, source.workspace, true);
    return { sessionId: session.id, clientId: issueClientId(session) };
  }

  /** Stops every agent process. Shutdown writes nothing for prompts still pending (SPEC §6). */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.registry.all().map((session) => session.close()));
  }

  require(sessionId: string): Session {
    const session = this.registry.get(sessionId);
    if (!session) throw ApiException.sessionNotFound(sessionId);
    return session;
  }

  /** The registered workspace at `cwd`; a relative path never names one. */
  private workspaceOf(cwd: string): Workspace {
    const wanted = isAbsolute(cwd) ? resolve(cwd) : undefined;
    const workspace = this.workspaces.find((w) => w.cwd === wanted);
    if (!workspace) throw ApiException.badRequest('workspace_mismatch', 'cwd is not a workspace of this daemon', { cwd });
    return workspace;
  }

  private async workspaceWithTranscript(sessionId: string): Promise<Workspace | undefined> {
    for (const workspace of this.workspaces) {
      if (await this.recorder.exists(workspace.cwd, sessionId)) return workspace;
    }
    return undefined;
  }

  /** Starts a session once, however many requests ask for it at the same time. */
  private start(sessionId: string, workspace: Workspace, resume: boolean): Promise<Session> {
    const live = this.registry.get(sessionId);
    if (live) return Promise.resolve(live);
    let starting = this.starting.get(sessionId);
    if (!starting) {
      starting = this.recorder
        .attach(sessionId, workspace.cwd)
        .then(() => this.addSession(sessionId, workspace, resume))
        .finally(() => this.starting.delete(sessionId));
      this.starting.set(sessionId, starting);
    }
    return starting;
  }

  private addSession(sessionId: string, workspace: Workspace, resume: boolean): Session {
    const session = new Session(sessionId, workspace, this.clock.now(), {
      engine: this.engine,
      recorder: this.recorder,
      events: this.events,
      clock: this.clock,
    }, resume);
    this.registry.add(session);
    return session;
  }

  private describe(session: Session, attached: boolean): CreatedSession {
    return {
      sessionId: session.id,
      workspaceCwd: session.workspace.cwd,
      attached,
      clientId: issueClientId(session),
      createdAt: new Date(session.createdAt).toISOString(),
    };
  }
}
