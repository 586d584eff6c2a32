import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { unregisteredClientId } from '../errors/api-errors.js';
import { PromptBridge } from '../bridge/prompt-bridge.js';
import { SessionEventBus } from '../events/session-event-bus.js';
import type { PendingInteraction } from '../turns/turn-status.js';
import { SessionRegistry } from './session-registry.js';
import { SessionsService } from './sessions.service.js';

/**
 * `GET /session/:id/status` (docs/qwen-serve.md).
 *
 * @publicApi
 */
export interface SessionStatus {
  sessionId: string;
  workspaceCwd: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601: the session's newest event, or its creation. */
  updatedAt: string;
  clientCount: number;
  hasActivePrompt: boolean;
  hasRunningBackgroundTasks: false;
  pendingPromptCount: number;
  /** The running turn waits on approval of a tool call (docs/permissions.md). */
  isWaitingForPermission: boolean;
  pendingInteractionCount: number;
  /** The requests for approval pending, oldest first. */
  pendingInteractions: PendingInteraction[];
  lastEventId: number;
  eventEpoch: string;
}

/**
 * `POST /session/:id/heartbeat`.
 *
 * @publicApi
 */
export interface Heartbeat {
  sessionId: string;
  clientId?: string;
  /** Epoch ms. */
  lastSeenAt: number;
}

/**
 * The clients of a live session as the peer's clients see them: its status,
 * their heartbeats and their detach.
 *
 * @publicApi
 */
@Injectable()
export class SessionPresenceService {
  constructor(
    private readonly sessions: SessionsService,
    private readonly registry: SessionRegistry,
    private readonly bridge: PromptBridge,
    private readonly events: SessionEventBus,
    private readonly clock: Clock,
  ) {}

  status(sessionId: string): SessionStatus {
    const session = this.sessions.require(sessionId);
    const pending = this.bridge.pendingPrompts(sessionId).length;
    const updatedAt = this.events.newestEventAt(sessionId) ?? session.createdAt;
    const pendingInteractions = [...this.bridge.pendingInteractions(sessionId)];
    return {
      sessionId,
      workspaceCwd: session.workspace.cwd,
      createdAt: new Date(session.createdAt).toISOString(),
      updatedAt: new Date(updatedAt).toISOString(),
      clientCount: this.registry.clientCount(sessionId),
      hasActivePrompt: pending > 0,
      hasRunningBackgroundTasks: false,
      pendingPromptCount: pending,
      isWaitingForPermission: pendingInteractions.length > 0,
      pendingInteractionCount: pendingInteractions.length,
      pendingInteractions,
      lastEventId: this.events.lastEventId(sessionId),
      eventEpoch: this.events.epochOf(sessionId),
    };
  }

  /** Answers that the client is still there (its id, if named, must be registered): the idle reaper counts it. */
  heartbeat(sessionId: string, clientId: string | undefined): Heartbeat {
    this.sessions.require(sessionId);
    const lastSeenAt = this.clock.now();
    if (clientId !== undefined && !this.registry.isClientRegistered(sessionId, clientId)) throw unregisteredClientId(sessionId, clientId);
    this.registry.heartbeat(sessionId, lastSeenAt);
    return clientId === undefined ? { sessionId, lastSeenAt } : { sessionId, clientId, lastSeenAt };
  }

  /**
   * Unregisters the client id; the session stays live (it ends only by a
   * close). Under `designated`, the requests only it could answer are answered `cancelled`.
   */
  detach(sessionId: string, clientId: string | undefined): void {
    this.sessions.require(sessionId);
    if (clientId === undefined) return;
    this.registry.detachClient(sessionId, clientId);
    this.bridge.clientLeft(sessionId, clientId);
  }
}
