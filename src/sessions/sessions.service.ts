import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { SESSION_OPTIONS, type SessionOptions } from './sessions.settings.js';
import { randomUUID } from 'node:crypto';
import { apiError, clusterUnavailable, sessionNotFound, tooManySessions } from '../errors/api-errors.js';
import type { BranchedSession, CreatedSession, RestoredSession } from '../wire/wire-types.js';
import { Clock } from '../common/clock.js';
import { SESSION_ID_PATTERN } from '../turns/rules/limits.js';
import { PromptBridge } from '../bridge/prompt-bridge.js';
import { AgentEngine } from '../engines/agent-engine.js';
import { SessionEventBus } from '../events/session-event-bus.js';
import { ChatRecordingService } from '../transcript/chat-recording.service.js';
import { PromptLedger } from '../ledger/prompt-ledger.js';
import type { LedgerTerminalRecord } from '../ledger/ledger-record.js';
import { TranscriptIdempotencyKeys } from '../idempotency/transcript-idempotency-keys.js';
import type { Principal } from '../http/request-principal.js';
import { idTaken, SessionOwnerFiles } from './session-owner-files.js';
import { SessionOwnership } from './session-ownership.js';
import { SessionRegistry } from './session-registry.js';
import { SessionTeardown } from './session-teardown.js';
import { Session } from './session.js';
import { workspaceAt, type Workspace } from './workspace.js';

/**
 * Session lifecycle: create or attach, load after a restart, close, rewind and
 * fork. Each session belongs to one workspace; nothing here falls back from an
 * unknown workspace to the primary one.
 *
 * @publicApi
 */
@Injectable()
export class SessionsService implements OnApplicationShutdown {
  private readonly logger = new Logger('SessionsService');
  private readonly starting = new Map<string, Promise<Session>>();
  /** Sessions a sweep holds (not live) while it settles their lost prompts: a start waits for it. */
  private readonly settling = new Map<string, Promise<void>>();
  /** Sessions whose ownership was lost while they were starting: their start must not make them live. */
  private readonly lostWhileStarting = new Set<string>();
  private readonly teardown: SessionTeardown;
  private readonly owners: SessionOwnerFiles;

  constructor(
    private readonly registry: SessionRegistry,
    private readonly bridge: PromptBridge,
    private readonly recorder: ChatRecordingService,
    private readonly engine: AgentEngine,
    private readonly events: SessionEventBus,
    private readonly clock: Clock,
    @Inject(SESSION_OPTIONS) private readonly settings: SessionOptions,
    private readonly ownership: SessionOwnership,
    private readonly idempotencyKeys: TranscriptIdempotencyKeys,
    private readonly ledger: PromptLedger,
  ) {
    this.teardown = new SessionTeardown({ registry, bridge, events, recorder, ledger, ownership });
    this.owners = new SessionOwnerFiles(recorder);
    ownership.onLoss((sessionId) => void this.evict(sessionId));
    // A cluster router claims a session for a load before the handler runs: one this node has no room for is refused
    // there, before the claim makes its owner let go.
    ownership.guardClaims(() => (this.full() ? tooManySessions(this.settings.maxSessions) : undefined));
  }

  /** `POST /session` by `principal`, who owns what it creates; `single` scope attaches to that principal's sessions only. */
  async create(
    request: { cwd?: string; sessionScope?: 'single' | 'thread'; sessionId?: string },
    principal?: Principal,
  ): Promise<CreatedSession> {
    const workspace = request.cwd === undefined ? this.settings.primary : this.workspaceOf(request.cwd);
    if (request.sessionId !== undefined && !SESSION_ID_PATTERN.test(request.sessionId)) {
      throw apiError('invalid_session_id');
    }
    const existing =
      request.sessionId !== undefined
        ? this.registry.get(request.sessionId)
        : (request.sessionScope ?? 'single') === 'single'
          ? this.registry.findByWorkspace(workspace.id, principal?.name)
          : undefined;
    // Another principal's id: never attached to, and never a second session of that id.
    if (existing && !this.registry.mayAccess(existing.id, principal)) throw idTaken();
    if (existing) {
      if (existing.workspace.id !== workspace.id) {
        throw apiError('workspace_mismatch', { sessionId: existing.id }, { message: 'Session belongs to another workspace' });
      }
      return this.describe(existing, true);
    }
    const owner =
      request.sessionId === undefined ? principal?.name : await this.owners.ownerForCreate(request.sessionId, workspace.cwd, principal);
    const session = await this.start(request.sessionId ?? randomUUID(), workspace, false, false, owner);
    // Re-read after the await: a create of the same id by another principal may have started it first.
    if (!this.registry.mayAccess(session.id, principal)) throw idTaken();
    return this.describe(session, false);
  }

  /**
   * `POST /session/:id/load`: makes a persisted session live again (404 when
   * its workspace has no transcript for it) and answers it in the peer's
   * shape (docs/qwen-serve.md), with the prompt ledger's terminals (docs/ledger.md).
   */
  async load(sessionId: string, principal?: Principal): Promise<RestoredSession & { promptTerminals?: LedgerTerminalRecord[] }> {
    const { session, attached } = await this.restore(sessionId, true, principal);
    if (!attached) await this.ledger.readRewinds(session.id);
    // A load that made the session live settles the prompts a crash left in flight (docs/ledger.md) — its start did, before
    // the session was live; again here (nothing is left to settle then) in case it shared a resume's start; every load
    // answers the ledger's recent terminals.
    const promptTerminals = attached
      ? await this.ledger.recentTerminals(session.id)
      : await this.ledger.reconcileAndReadTerminals(session.id);
    return { ...this.describeRestored(session, attached), ...(promptTerminals.length > 0 && { promptTerminals }) };
  }

  /** `POST /session/:id/resume`: the load without the prompt ledger's terminals and reconciliation. */
  async resume(sessionId: string, principal?: Principal): Promise<RestoredSession> {
    const { session, attached } = await this.restore(sessionId, false, principal);
    if (!attached) await this.ledger.readRewinds(session.id);
    return this.describeRestored(session, attached);
  }

  /** Makes the session live for `principal`: one it may not see is not found, and is never made live for it. */
  private async restore(sessionId: string, reconcile: boolean, principal?: Principal): Promise<{ session: Session; attached: boolean }> {
    let session = this.registry.get(sessionId);
    const attached = session !== undefined;
    if (!session) {
      const workspace = SESSION_ID_PATTERN.test(sessionId) ? await this.workspaceWithTranscript(sessionId) : undefined;
      const visible = workspace && (await this.owners.visibleTo(sessionId, workspace.cwd, principal));
      if (!workspace || !visible) {
        // A cluster router may have claimed the id for this load; nothing is left holding it
        // (unless a create of that id is starting right now).
        if (!this.starting.has(sessionId)) await this.ownership.release(sessionId);
        throw sessionNotFound(sessionId);
      }
      session = await this.start(sessionId, workspace, true, reconcile, visible.owner);
    }
    // Also when it was live, or another principal's load started it meanwhile.
    if (!this.registry.mayAccess(sessionId, principal)) throw sessionNotFound(sessionId);
    return { session, attached };
  }

  /**
   * The keys the session's prompts were admitted with replay after the load
   * (docs/idempotency.md), seeded before the session is live (a retry during the read
   * finds no live session rather than an empty store); resolves with the
   * client ids they were scoped to, issued for this session. A ledger it
   * cannot read fails the load with `503 ledger_unavailable`.
   */
  private async restoreIdempotencyKeys(sessionId: string): Promise<Set<string>> {
    // The ledger first: a prompt still queued when its node died has no transcript record, and a
    // ledger that cannot be read leaves nothing seeded.
    const admitted = await this.ledger.keyedAdmissions(sessionId).catch((error: unknown) => {
      this.logger.warn(`session ${sessionId} not loaded: its ledger could not be read (${(error as Error)?.name ?? 'error'})`);
      throw apiError('ledger_unavailable', { sessionId }, { message: 'The prompt ledger could not be read; the session was not loaded' });
    });
    const clientIds = await this.idempotencyKeys.restore(sessionId, this.settings.scanLimits);
    for (const clientId of this.idempotencyKeys.seed(sessionId, admitted)) clientIds.add(clientId);
    return clientIds;
  }

  /**
   * Runs `work` (the sweep's settling of a session live nowhere, docs/ledger.md)
   * while the session is held off: false, without running it, when the
   * session is live, starting or held already. A start that comes meanwhile
   * waits for it, then starts as usual; `work`'s rejection is the caller's.
   */
  async holdWhile(sessionId: string, work: () => Promise<void>): Promise<boolean> {
    if (this.registry.get(sessionId) || this.starting.has(sessionId) || this.settling.has(sessionId)) return false;
    const held = work().finally(() => this.settling.delete(sessionId));
    this.settling.set(sessionId, held);
    await held;
    return true;
  }

  async close(sessionId: string): Promise<void> {
    await this.teardown.end(this.require(sessionId), 'closed');
  }

  /** Closes the session as {@link close} does, for being idle (its reaper decided): never rejects. */
  async reap(session: Session): Promise<void> {
    await this.teardown.end(session, 'idle');
  }

  /**
   * Closes a session whose ownership moved to another node: nothing more is
   * written to its transcript, its prompts end in `error session_closed`.
   * Never rejects (a failure is logged).
   */
  async evict(sessionId: string): Promise<void> {
    const session = this.registry.get(sessionId);
    if (session) await this.teardown.end(session, 'lost');
    // Noted in the loss's own turn: the start under way then refuses to make it live (chaos SEED=6151 schedule 12).
    else if (this.starting.has(sessionId)) this.lostWhileStarting.add(sessionId);
  }

  /** `POST /session/:id/fork`: a new live session cloned from the active chain (docs/routes.md). */
  async fork(sessionId: string): Promise<{ sessionId: string; clientId: string }> {
    const { sessionId: forkId, clientId } = await this.branch(sessionId);
    return { sessionId: forkId, clientId };
  }

  /** `POST /session/:id/branch`: the same clone, in the peer's shape (docs/qwen-serve.md). */
  async branch(sessionId: string): Promise<BranchedSession> {
    const source = this.require(sessionId);
    if (this.full()) throw tooManySessions(this.settings.maxSessions);
    const forkId = randomUUID();
    // The clone inherits the source's owner, recorded before it is live.
    const owner = this.registry.ownerOf(sessionId);
    const clone = async () => {
      await this.recorder.fork(sessionId, forkId, source.workspace.cwd);
      await this.owners.write(forkId, source.workspace.cwd, owner);
    };
    // Starting, as any session: counted against the bound, and not made live if its lease is lost meanwhile.
    const session = await this.tracked(
      forkId,
      this.claimed(forkId, clone).then(() => this.liveUnlessLost(forkId, source.workspace, true, new Set(), owner)),
    );
    return { ...this.describe(session, false), forkedFrom: { sessionId } };
  }

  /**
   * Ends every session, those still starting and those already ending too,
   * once a sweep's settle under way is done; one session's failure is logged
   * and harms no other. Then the recorder refuses every later append: shutdown
   * writes nothing for prompts still pending.
   */
  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.starting.values(), ...this.settling.values()]);
    for (const session of this.registry.all()) void this.teardown.end(session, 'shutdown');
    await this.teardown.settled();
    await this.recorder.closeAll();
  }

  require(sessionId: string): Session {
    const session = this.registry.get(sessionId);
    if (!session) throw sessionNotFound(sessionId);
    return session;
  }

  private workspaceOf(cwd: string): Workspace {
    const workspace = workspaceAt(this.settings.workspaces, cwd);
    if (!workspace) throw apiError('workspace_mismatch', { cwd });
    return workspace;
  }

  private async workspaceWithTranscript(sessionId: string): Promise<Workspace | undefined> {
    for (const workspace of this.settings.workspaces) {
      if (await this.recorder.exists(workspace.cwd, sessionId)) return workspace;
    }
    return undefined;
  }

  /**
   * Starts a session once, however many requests ask for it at the same time. A load's start (`reconcile`) settles
   * the prompts a crash left in flight before the session is live: no request then finds one of them unknown.
   */
  private start(sessionId: string, workspace: Workspace, resume: boolean, reconcile = false, owner?: string): Promise<Session> {
    const live = this.registry.get(sessionId);
    if (live) return Promise.resolve(live);
    const settling = this.settling.get(sessionId);
    if (settling) return settling.catch(() => undefined).then(() => this.start(sessionId, workspace, resume, reconcile, owner));
    let starting = this.starting.get(sessionId);
    if (!starting) {
      // A cluster router may have claimed the id for this load: a session that is not started holds nothing.
      if (this.full()) return this.ownership.release(sessionId).then(() => Promise.reject(tooManySessions(this.settings.maxSessions)));
      starting = this.tracked(
        sessionId,
        this.claimed(sessionId, () => this.attachRestoring(sessionId, workspace, resume, reconcile, owner)).then((clientIds) =>
          this.liveUnlessLost(sessionId, workspace, resume, clientIds, owner),
        ),
      );
    }
    return starting;
  }

  /** Tracks a session's start until it settles: counted against the bound, shared by requests meanwhile. */
  private tracked(sessionId: string, start: Promise<Session>): Promise<Session> {
    const tracked = start.finally(() => {
      this.starting.delete(sessionId);
      this.lostWhileStarting.delete(sessionId);
    });
    this.starting.set(sessionId, tracked);
    return tracked;
  }

  /** Attaches the transcript; a resume also restores the keys (a load also reconciles), detached again when that fails. */
  private async attachRestoring(
    sessionId: string,
    workspace: Workspace,
    resume: boolean,
    reconcile: boolean,
    owner: string | undefined,
  ): Promise<Set<string>> {
    // A new session's owner is on disk before it is live (a failed write fails the create).
    if (!resume) await this.owners.write(sessionId, workspace.cwd, owner);
    await this.recorder.attach(sessionId, workspace.cwd);
    if (!resume) return new Set();
    try {
      const clientIds = await this.restoreIdempotencyKeys(sessionId);
      if (reconcile) await this.ledger.reconcileAndReadTerminals(sessionId);
      return clientIds;
    } catch (error) {
      await this.ledger.detach(sessionId);
      await this.recorder.detach(sessionId);
      throw error;
    }
  }

  /**
   * Makes the started session live, unless this node lost it meanwhile (its lease
   * taken while the start read the ledger): then nothing of it stays here, and the
   * start fails `503 cluster_unavailable`, as a claim lost before it resolved does.
   * Otherwise the session would be live with no lease, and answer reads whenever the
   * directory names no owner (after Redis lost its data, say).
   */
  private async liveUnlessLost(
    sessionId: string,
    workspace: Workspace,
    resume: boolean,
    clientIds: Set<string>,
    owner: string | undefined,
  ): Promise<Session> {
    if (!this.lostWhileStarting.has(sessionId)) return this.addSession(sessionId, workspace, resume, clientIds, owner);
    this.logger.warn(`session ${sessionId} lost its lease while it was starting here; not made live`);
    await this.teardown.abandonStart(sessionId);
    throw clusterUnavailable({ sessionId });
  }

  /** Claims the session for this node around `work`; a failed `work` gives the claim back. */
  private async claimed<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    await this.ownership.claim(sessionId);
    try {
      return await work();
    } catch (error) {
      await this.ownership.release(sessionId);
      throw error;
    }
  }

  /** At the configured bound (sessions being started count): `503 too_many_sessions`. */
  private full(): boolean {
    return this.registry.size + this.starting.size >= this.settings.maxSessions;
  }

  private addSession(
    sessionId: string,
    workspace: Workspace,
    resume: boolean,
    clientIds: Iterable<string>,
    owner: string | undefined,
  ): Session {
    const parts = { engine: this.engine, recorder: this.recorder, events: this.events, clock: this.clock };
    const session = new Session(sessionId, workspace, this.clock.now(), parts, resume);
    this.registry.add(session, owner);
    // Registered with it, in the same turn: a named client is never refused for a restored id.
    for (const clientId of clientIds) this.registry.restoreClientId(sessionId, clientId);
    return session;
  }

  private describeRestored(session: Session, attached: boolean): RestoredSession {
    return {
      ...this.describe(session, attached),
      state: {},
      hasActivePrompt: this.bridge.pendingPrompts(session.id).length > 0,
      hasRunningBackgroundTasks: false,
      lastEventId: this.events.lastEventId(session.id),
      eventEpoch: this.events.epochOf(session.id),
    };
  }

  private describe(session: Session, attached: boolean): CreatedSession {
    // A client joining is a sign of life, as a heartbeat is (docs/operating.md#idle-sessions).
    if (attached) this.registry.heartbeat(session.id, this.clock.now());
    return {
      sessionId: session.id,
      workspaceCwd: session.workspace.cwd,
      attached,
      clientId: this.registry.issueClientId(session.id),
      createdAt: new Date(session.createdAt).toISOString(),
    };
  }
}
