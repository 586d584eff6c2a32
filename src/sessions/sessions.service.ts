import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { SESSION_OPTIONS, type SessionOptions } from './sessions.settings.js';
import { sessionNotFound } from '../errors/api-errors.js';
import type { BranchedSession, CreatedSession, RestoredSession } from '../wire/wire-types.js';
import { Clock } from '../common/clock.js';
import { PromptBridge } from '../bridge/prompt-bridge.js';
import { AgentEngine } from '../engines/agent-engine.js';
import { SessionEventBus } from '../events/session-event-bus.js';
import { ChatRecordingService } from '../transcript/chat-recording.service.js';
import { PromptLedger } from '../ledger/prompt-ledger.js';
import type { LedgerTerminalRecord } from '../ledger/ledger-record.js';
import { TranscriptIdempotencyKeys } from '../idempotency/transcript-idempotency-keys.js';
import type { Principal } from '../http/request-principal.js';
import { SessionCreator } from './session-creator.js';
import { SessionForker } from './session-forker.js';
import { SessionOwnerFiles } from './session-owner-files.js';
import { SessionOwnership } from './session-ownership.js';
import { SessionRegistry } from './session-registry.js';
import { SessionRestorer } from './session-restorer.js';
import { SessionStarts } from './session-starts.js';
import { SessionTeardown } from './session-teardown.js';
import type { Session } from './session.js';

/**
 * Session lifecycle: create or attach ({@link SessionCreator}), load after a restart ({@link SessionRestorer}), fork
 * ({@link SessionForker}), each started once ({@link SessionStarts}); close, reap and evict through one teardown.
 * Each session belongs to one workspace; nothing here falls back from an unknown workspace to the primary one.
 *
 * @publicApi
 */
@Injectable()
export class SessionsService implements OnApplicationShutdown {
  private readonly teardown: SessionTeardown;
  private readonly starts: SessionStarts;
  private readonly creator: SessionCreator;
  private readonly restorer: SessionRestorer;
  private readonly forker: SessionForker;

  constructor(
    private readonly registry: SessionRegistry,
    bridge: PromptBridge,
    private readonly recorder: ChatRecordingService,
    engine: AgentEngine,
    events: SessionEventBus,
    clock: Clock,
    @Inject(SESSION_OPTIONS) settings: SessionOptions,
    ownership: SessionOwnership,
    idempotencyKeys: TranscriptIdempotencyKeys,
    ledger: PromptLedger,
  ) {
    const teardown = new SessionTeardown({ registry, bridge, events, recorder, ledger, ownership });
    const owners = new SessionOwnerFiles(recorder);
    const starts = new SessionStarts({ registry, ownership, teardown, engine, recorder, events, clock, limits: settings });
    this.teardown = teardown;
    this.starts = starts;
    this.creator = new SessionCreator({ registry, owners, starts, recorder, clock, workspaces: settings });
    this.restorer = new SessionRestorer({
      registry,
      starts,
      owners,
      ownership,
      recorder,
      ledger,
      idempotencyKeys,
      bridge,
      events,
      clock,
      settings,
    });
    this.forker = new SessionForker({ registry, starts, recorder, owners, clock });
    ownership.onLoss((sessionId) => void this.evict(sessionId));
    // A cluster router claims a session for a load before the handler runs: one this node has no room for is refused
    // there, before the claim makes its owner let go.
    ownership.guardClaims(() => starts.refusal());
  }

  /** `POST /session` by `principal`, who owns what it creates; `single` scope attaches to that principal's sessions only. */
  create(
    request: { cwd?: string; sessionScope?: 'single' | 'thread'; sessionId?: string },
    principal?: Principal,
  ): Promise<CreatedSession> {
    return this.creator.create(request, principal);
  }

  /** `POST /session/:id/load`: a persisted session made live again, with the prompt ledger's terminals (docs/ledger.md). */
  load(sessionId: string, principal?: Principal): Promise<RestoredSession & { promptTerminals?: LedgerTerminalRecord[] }> {
    return this.restorer.load(sessionId, principal);
  }

  /** `POST /session/:id/resume`: the load without the prompt ledger's terminals and reconciliation. */
  resume(sessionId: string, principal?: Principal): Promise<RestoredSession> {
    return this.restorer.resume(sessionId, principal);
  }

  /**
   * Runs `work` (the sweep's settling of a session live nowhere, docs/ledger.md)
   * while the session is held off: false, without running it, when the
   * session is live, starting or held already. A start that comes meanwhile
   * waits for it, then starts as usual; `work`'s rejection is the caller's.
   */
  holdWhile(sessionId: string, work: () => Promise<void>): Promise<boolean> {
    return this.starts.holdWhile(sessionId, work);
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
    else this.starts.noteLost(sessionId);
  }

  /** `POST /session/:id/fork`: a new live session cloned from the active chain (docs/routes.md). */
  async fork(sessionId: string): Promise<{ sessionId: string; clientId: string }> {
    const { sessionId: forkId, clientId } = await this.branch(sessionId);
    return { sessionId: forkId, clientId };
  }

  /** `POST /session/:id/branch`: the same clone, in the peer's shape (docs/qwen-serve.md). */
  branch(sessionId: string): Promise<BranchedSession> {
    return this.forker.branch(this.require(sessionId));
  }

  /**
   * Ends every session, those still starting and those already ending too,
   * once a sweep's settle under way is done; one session's failure is logged
   * and harms no other. Then the recorder refuses every later append: shutdown
   * writes nothing for prompts still pending.
   */
  async onApplicationShutdown(): Promise<void> {
    await this.starts.settled();
    for (const session of this.registry.all()) void this.teardown.end(session, 'shutdown');
    await this.teardown.settled();
    await this.recorder.closeAll();
  }

  require(sessionId: string): Session {
    const session = this.registry.get(sessionId);
    if (!session) throw sessionNotFound(sessionId);
    return session;
  }
}
