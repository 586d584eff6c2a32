import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { SessionRunner, type SessionPrompt } from '../bridge/session-runner.js';
import type { TurnOutcome } from '../turns/rules/turn-outcome.js';
import type { Principal } from '../http/request-principal.js';
import { mayAccessSession } from '../http/session-owner.js';
import type { Session } from './session.js';

interface LiveSession {
  readonly session: Session;
  /** Client ids issued for this session. */
  readonly clients: Set<string>;
  /** The newest heartbeat (epoch ms): a client still there keeps the session from being reaped. */
  lastHeartbeatAt?: number;
  /** The principal that owns it (docs/security.md#ownership); none for a session made without one. */
  readonly owner: string | undefined;
}

/**
 * Live sessions by id, and the client ids issued for each: the sessions side
 * of the {@link SessionRunner} port the bridge runs prompts through, and the
 * `SessionClientLookup` that `ClientIdGuard` asks (`TurnsModule.forRoot({ sessionLookup: SessionRegistry })`).
 */
@Injectable()
export class SessionRegistry extends SessionRunner {
  private readonly sessions = new Map<string, LiveSession>();

  get(sessionId: string): Session | undefined {
    return this.sessions.get(sessionId)?.session;
  }

  add(session: Session, owner?: string): void {
    this.sessions.set(session.id, { session, clients: new Set(), owner });
  }

  /** The principal that owns a live session, if it has one. */
  ownerOf(sessionId: string): string | undefined {
    return this.sessions.get(sessionId)?.owner;
  }

  /**
   * False only for a session live here that `principal` may not see: every
   * route of it then answers as for a session that does not exist. A session
   * not live here is the route's to answer (a `404`, or a load that checks
   * the owner it reads).
   */
  mayAccess(sessionId: string, principal: Principal | undefined): boolean {
    const live = this.sessions.get(sessionId);
    return live === undefined || mayAccessSession(live.owner, principal);
  }

  remove(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  /** Mints a client id (`client_<uuid>`) and registers it on the live session. */
  issueClientId(sessionId: string): string {
    const live = this.sessions.get(sessionId);
    if (!live) throw new Error(`session ${sessionId} is not live`);
    const clientId = `client_${randomUUID()}`;
    live.clients.add(clientId);
    return clientId;
  }

  /** Registers a client id issued for this session before (by an earlier process, as its transcript shows). */
  restoreClientId(sessionId: string, clientId: string): void {
    this.sessions.get(sessionId)?.clients.add(clientId);
  }

  /** Unregisters a client id (a detach): its later requests are refused as unregistered. */
  detachClient(sessionId: string, clientId: string): void {
    this.sessions.get(sessionId)?.clients.delete(clientId);
  }

  /** Notes a client's heartbeat on the live session. */
  heartbeat(sessionId: string, at: number): void {
    const live = this.sessions.get(sessionId);
    if (live) live.lastHeartbeatAt = at;
  }

  /** The newest heartbeat of the live session, if it had one. */
  lastHeartbeatAt(sessionId: string): number | undefined {
    return this.sessions.get(sessionId)?.lastHeartbeatAt;
  }

  /** Client ids registered on the session. */
  clientCount(sessionId: string): number {
    return this.sessions.get(sessionId)?.clients.size ?? 0;
  }

  /** A live session of the workspace that `owner` owns, for `sessionScope: "single"` (per principal). */
  findByWorkspace(workspaceId: string, owner?: string): Session | undefined {
    for (const live of this.sessions.values()) if (live.session.workspace.id === workspaceId && live.owner === owner) return live.session;
    return undefined;
  }

  all(): Session[] {
    return [...this.sessions.values()].map((live) => live.session);
  }

  get size(): number {
    return this.sessions.size;
  }

  // --- SessionRunner (and the session lookup ClientIdGuard asks) ----------------

  hasSession(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  isClientRegistered(sessionId: string, clientId: string): boolean {
    return this.sessions.get(sessionId)?.clients.has(clientId) ?? false;
  }

  override isSessionOf(sessionId: string, principal: string | undefined): boolean {
    return this.sessions.get(sessionId)?.owner === principal;
  }

  run(sessionId: string, prompt: SessionPrompt, signal: AbortSignal): Promise<TurnOutcome> | undefined {
    return this.sessions.get(sessionId)?.session.prompt(prompt, signal);
  }
}
