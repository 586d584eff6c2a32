import { Logger } from '@nestjs/common';
import type { Clock } from '../common/clock.js';
import type { AgentEngine } from '../engines/agent-engine.js';
import { clusterUnavailable, tooManySessions } from '../errors/api-errors.js';
import type { ApiException } from '../errors/api-exception.js';
import type { SessionEventBus } from '../events/session-event-bus.js';
import type { ChatRecordingService } from '../transcript/chat-recording.service.js';
import type { SessionOwnership } from './session-ownership.js';
import type { SessionRegistry } from './session-registry.js';
import type { SessionTeardown } from './session-teardown.js';
import { Session } from './session.js';
import type { Workspace } from './workspace.js';

/** How one session starts: where, as new or resumed, whose, and the work done under its claim before it is live. */
export interface StartPlan {
  workspace: Workspace;
  resume: boolean;
  owner: string | undefined;
  /** Runs with the session claimed (a failure gives the claim back); resolves with the client ids to restore. */
  prepare: () => Promise<Iterable<string>>;
}

/** What a start needs: the live sessions, the cluster's claims, a teardown for a start lost meanwhile, a session's parts. */
export interface StartParts {
  registry: SessionRegistry;
  ownership: SessionOwnership;
  teardown: SessionTeardown;
  engine: AgentEngine;
  recorder: ChatRecordingService;
  events: SessionEventBus;
  clock: Clock;
  limits: { readonly maxSessions: number };
}

/**
 * The sessions being started and those a sweep holds off: each starts once however many requests ask, counts against
 * the bound on live sessions while it starts, and is not made live if this node lost it meanwhile.
 */
export class SessionStarts {
  private readonly logger = new Logger('SessionsService');
  private readonly starting = new Map<string, Promise<Session>>();
  /** Sessions a sweep holds (not live) while it settles their lost prompts: a start waits for it. */
  private readonly settling = new Map<string, Promise<void>>();
  /** Sessions whose ownership was lost while they were starting: their start must not make them live. */
  private readonly lostWhileStarting = new Set<string>();

  constructor(private readonly parts: StartParts) {}

  /** Starts the session once, however many requests ask for it at the same time; a live one is answered as it is. */
  start(sessionId: string, plan: StartPlan): Promise<Session> {
    const live = this.parts.registry.get(sessionId);
    if (live) return Promise.resolve(live);
    const settling = this.settling.get(sessionId);
    if (settling) return settling.catch(() => undefined).then(() => this.start(sessionId, plan));
    const starting = this.starting.get(sessionId);
    if (starting) return starting;
    const refused = this.refusal();
    // A cluster router may have claimed the id for this load: a session that is not started holds nothing.
    if (refused) return this.parts.ownership.release(sessionId).then(() => Promise.reject(refused));
    return this.tracked(
      sessionId,
      this.claimed(sessionId, plan.prepare).then((clientIds) => this.liveUnlessLost(sessionId, plan, clientIds)),
    );
  }

  /** `503 too_many_sessions` at the configured bound (sessions being started count), else `undefined`. */
  refusal(): ApiException | undefined {
    const { registry, limits } = this.parts;
    return registry.size + this.starting.size >= limits.maxSessions ? tooManySessions(limits.maxSessions) : undefined;
  }

  isStarting(sessionId: string): boolean {
    return this.starting.has(sessionId);
  }

  /**
   * Runs `work` (the sweep's settling of a session live nowhere, docs/ledger.md) while the session is held off: false,
   * without running it, when it is live, starting or held already. A start meanwhile waits for it; `work`'s rejection is the caller's.
   */
  async holdWhile(sessionId: string, work: () => Promise<void>): Promise<boolean> {
    if (this.parts.registry.get(sessionId) || this.starting.has(sessionId) || this.settling.has(sessionId)) return false;
    const held = work().finally(() => this.settling.delete(sessionId));
    this.settling.set(sessionId, held);
    await held;
    return true;
  }

  /** This node lost a session that is starting: noted in the loss's own turn, so the start refuses to make it live (chaos SEED=6151 schedule 12). */
  noteLost(sessionId: string): void {
    if (this.starting.has(sessionId)) this.lostWhileStarting.add(sessionId);
  }

  /** Settles once every start and every sweep's hold under way has. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.starting.values(), ...this.settling.values()]);
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

  /** Claims the session for this node around `work`; a failed `work` gives the claim back. */
  private async claimed<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    await this.parts.ownership.claim(sessionId);
    try {
      return await work();
    } catch (error) {
      await this.parts.ownership.release(sessionId);
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
  private async liveUnlessLost(sessionId: string, plan: StartPlan, clientIds: Iterable<string>): Promise<Session> {
    if (!this.lostWhileStarting.has(sessionId)) return this.addSession(sessionId, plan, clientIds);
    this.logger.warn(`session ${sessionId} lost its lease while it was starting here; not made live`);
    await this.parts.teardown.abandonStart(sessionId);
    throw clusterUnavailable({ sessionId });
  }

  private addSession(sessionId: string, plan: StartPlan, clientIds: Iterable<string>): Session {
    const { registry, engine, recorder, events, clock } = this.parts;
    const session = new Session(sessionId, plan.workspace, clock.now(), { engine, recorder, events, clock }, plan.resume);
    registry.add(session, plan.owner);
    // Registered with it, in the same turn: a named client is never refused for a restored id.
    for (const clientId of clientIds) registry.restoreClientId(sessionId, clientId);
    return session;
  }
}
