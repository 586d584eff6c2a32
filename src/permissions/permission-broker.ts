import { Inject, Injectable, Logger, Optional, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Clock } from '../common/clock.js';
import { type EnginePermissionOutcome, type EnginePermissionRequest, PERMISSION_CANCELLED } from '../engines/agent-engine.js';
import { apiError } from '../errors/api-errors.js';
import { SessionEventBus } from '../events/session-event-bus.js';
import type { PermissionDecider } from '../telemetry/turns-channels.js';
import type { PendingInteraction } from '../turns/turn-status.js';
import { PromptBridge } from '../bridge/prompt-bridge.js';
import { SessionRunner } from '../bridge/session-runner.js';
import type { HookedTurn, TurnHooks } from '../bridge/turn-hooks.js';
import type { TurnTransition } from '../bridge/turn-transition.js';
import { permissionRequestId } from '../wire/permission-request-id.js';
import type { PermissionOutcome, SessionEventData, SessionEventKind } from '../wire/session-event.js';
import { HeldRequests, type HeldRequest } from './held-requests.js';
import { boundedToolCall, pendingInteractionOf } from './pending-interaction.js';
import { auditDecision, auditedClient, PERMISSION_AUDIT_LOG, requestLine, type Answerer, type AuditLog } from './permission-log.js';
import { PERMISSION_OPTIONS, type PermissionOptions } from './permissions.settings.js';
import { decisionAtOnce, isOffered, MAX_PENDING_PER_SESSION, mayAnswer, needsClientId, refusingOutcome } from './permission-policy.js';
import { RecentAnswers } from './recent-answers.js';

/** The prompt a request for approval belongs to. */
export type PermissionTurn = HookedTurn;

/** Which sessions are live: the broker holds, and takes answers, for those only. */
export type LiveSessions = Pick<SessionRunner, 'hasSession'>;

/** Where the broker announces requests and answers: the sessions' event stream (the testing kit's goes nowhere). */
export interface PermissionEvents {
  publish<T extends SessionEventKind>(
    sessionId: string,
    type: T,
    fields: { promptId?: string; data: SessionEventData[T]; originatorClientId?: string },
  ): unknown;
}

/**
 * The requests for approval agents are waiting on (docs/permissions.md), and the bridge's turn hooks: each held under
 * `ask` until its first answer, handed to the agent once (docs/decisions.md#approval-is-a-plug-in-of-the-queue).
 */
@Injectable()
export class PermissionBroker implements TurnHooks, OnModuleInit, OnApplicationShutdown {
  private readonly held = new HeldRequests();
  private readonly answered = new RecentAnswers();
  private readonly listeners = new Set<(sessionId: string, promptId: string) => void>();
  private readonly requestListeners = new Set<(turn: PermissionTurn, item: PendingInteraction) => void>();

  constructor(
    @Inject(SessionRunner) private readonly sessions: LiveSessions,
    @Inject(SessionEventBus) private readonly events: PermissionEvents,
    private readonly clock: Clock,
    @Inject(PERMISSION_OPTIONS) private readonly options: PermissionOptions,
    /** The queue it plugs into, in the reference runtime. */
    @Optional() private readonly bridge?: PromptBridge,
    @Optional() @Inject(PERMISSION_AUDIT_LOG) private readonly logger: AuditLog = new Logger('Permissions'),
  ) {
    if (options.permissionPolicy === 'allow') {
      this.logger.warn('permission policy "allow": every tool call an agent asks to run is approved unseen');
    }
  }

  /**
   * An agent asks approval for a tool call during `turn`: settles with the decision, exactly once; `cancelled` when
   * `signal` (the turn's) aborts first, or has already, or the session is not live. The testing kit names its requests.
   */
  ask(
    turn: PermissionTurn,
    request: EnginePermissionRequest,
    signal: AbortSignal,
    requestId = permissionRequestId(turn.sessionId, randomBytes(8).toString('hex')),
  ): Promise<EnginePermissionOutcome> {
    if (this.held.get(requestId)) throw new Error(`request ${requestId} is pending already`);
    const item = pendingInteractionOf(requestId, this.clock.now(), request);
    const title = item.action.title ?? '';
    const ended = signal.aborted || !this.sessions.hasSession(turn.sessionId);
    const pendingInSession = this.held.inSession(turn.sessionId).length;
    const atOnce = decisionAtOnce(this.options.permissionPolicy, request.options, { ended, pendingInSession });
    this.logger.log(requestLine(requestId, title, turn.promptId, auditedClient(turn.sessionId, turn.originatorClientId, turn.principal)));
    if (atOnce) {
      if (atOnce.decidedBy === 'limit') {
        this.logger.warn(`permission ${requestId} cancelled: ${MAX_PENDING_PER_SESSION} requests of session ${turn.sessionId} are pending`);
      }
      auditDecision(
        this.logger,
        { sessionId: turn.sessionId, requestId, title, options: request.options },
        atOnce.outcome,
        atOnce.decidedBy,
      );
      return Promise.resolve(atOnce.outcome);
    }
    return new Promise((resolve) => {
      const onEnd = () => this.resolve(entry, PERMISSION_CANCELLED, 'turn_end');
      const timer =
        this.options.permissionTimeoutMs === undefined
          ? undefined
          : setTimeout(() => this.resolve(entry, refusingOutcome(request.options), 'timeout'), this.options.permissionTimeoutMs);
      timer?.unref?.();
      const entry: HeldRequest = {
        ...turn,
        requestId,
        item,
        title,
        resolved: false,
        finish: (outcome) => {
          signal.removeEventListener('abort', onEnd);
          clearTimeout(timer);
          resolve(outcome);
        },
      };
      signal.addEventListener('abort', onEnd, { once: true });
      this.held.add(entry);
      const options = item.options.map(({ optionId, label, kind }) => ({ optionId, ...(label !== undefined && { name: label }), kind }));
      this.events.publish(turn.sessionId, 'permission_request', {
        promptId: turn.promptId,
        data: { sessionId: turn.sessionId, requestId, toolCall: boundedToolCall(request.toolCall), options },
        originatorClientId: turn.originatorClientId,
      });
      this.changed(entry);
      for (const listener of this.requestListeners) listener(turn, item);
    });
  }

  /**
   * A client's answer (`POST /session/:id/permission/:requestId`, or the peer's route without `sessionId`): `404
   * permission_not_found` when unknown, answered already or its session is not live, then `403 permission_forbidden`
   * for a client the responder policy refuses, then `400 permission_option_not_offered`.
   */
  answer(requestId: string, outcome: PermissionOutcome, clientId: string | undefined, sessionId?: string, principal?: string): void {
    const entry = this.held.get(requestId);
    // A session being torn down is not live while its requests wait for the close to cancel them: nobody answers them.
    if (!entry || (sessionId !== undefined && entry.sessionId !== sessionId) || !this.sessions.hasSession(entry.sessionId)) {
      this.tellLate(requestId, sessionId);
      throw apiError('permission_not_found', { requestId });
    }
    // Who may answer comes first: a client refused learns nothing about the request's options.
    if (!mayAnswer(this.options.permissionResponder, entry.originatorClientId, clientId)) {
      const who = clientId !== undefined ? { clientId } : {};
      this.events.publish(entry.sessionId, 'permission_forbidden', {
        promptId: entry.promptId,
        data: { sessionId: entry.sessionId, requestId, reason: 'designated_mismatch', ...who },
      });
      throw apiError('permission_forbidden', { sessionId: entry.sessionId, requestId, ...who });
    }
    if (outcome.outcome === 'selected' && !isOffered(entry.item, outcome)) {
      throw apiError('permission_option_not_offered', { requestId, optionId: outcome.optionId });
    }
    const chosen: EnginePermissionOutcome =
      outcome.outcome === 'selected' ? { outcome: 'selected', optionId: outcome.optionId } : PERMISSION_CANCELLED;
    this.resolve(entry, chosen, 'client', { clientId, principal });
  }

  /** Under `ask` and `designated`, a prompt with no client id is refused (`400 client_id_required`): nobody could answer its requests. */
  assertAdmissible(sessionId: string, clientId: string | undefined): void {
    if (clientId === undefined && needsClientId(this.options.permissionPolicy, this.options.permissionResponder)) {
      throw apiError('client_id_required', { sessionId });
    }
  }

  /** A client left (a detach): under `designated` nobody else may answer its prompts' requests, so each is answered `cancelled`. */
  clientLeft(sessionId: string, clientId: string): void {
    if (this.options.permissionResponder !== 'designated') return;
    for (const entry of this.held.inSession(sessionId)) {
      if (entry.originatorClientId === clientId) this.resolve(entry, PERMISSION_CANCELLED, 'client_left');
    }
  }

  /** The pending requests of a prompt (none: `undefined`), as its running status carries them. */
  pendingOf(sessionId: string, promptId: string): PendingInteraction[] | undefined {
    const items = this.held
      .inSession(sessionId)
      .filter((entry) => entry.promptId === promptId)
      .map((entry) => entry.item);
    return items.length ? items : undefined;
  }

  /** Every pending request of a session, oldest first (`GET /session/:id/status`). */
  pendingInSession(sessionId: string): PendingInteraction[] {
    return this.held.inSession(sessionId).map((entry) => entry.item);
  }

  /** Requests pending across every session (read when metrics are scraped). */
  get pendingCount(): number {
    return this.held.size;
  }

  /** Calls `listener` after a request appeared on, or left, a prompt; the returned function stops it. */
  onChange(listener: (sessionId: string, promptId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls `listener` with each request held for an answer (after the running status shows it); the returned function stops it. */
  onRequested(listener: (turn: PermissionTurn, item: PendingInteraction) => void): () => void {
    this.requestListeners.add(listener);
    return () => this.requestListeners.delete(listener);
  }

  /** The bridge's transition stream: a prompt that settled (cancel, deadline, removal, close) leaves nothing pending. */
  readonly observe = (transition: TurnTransition): void => {
    if (transition.kind !== 'settled') return;
    for (const entry of this.held.inSession(transition.sessionId)) {
      if (entry.promptId === transition.promptId) this.resolve(entry, PERMISSION_CANCELLED, 'turn_end');
    }
  };

  /** Plugs into the reference runtime's queue: the bridge asks it, shows what it holds, and tells it each transition. */
  onModuleInit(): void {
    this.bridge?.use(this);
  }

  /** A daemon that stops answers every request still pending `cancelled`. */
  onApplicationShutdown(): void {
    for (const entry of this.held.all()) this.resolve(entry, PERMISSION_CANCELLED, 'turn_end');
  }

  /** Through the latch: true when this answer is the request's first. */
  private resolve(entry: HeldRequest, outcome: EnginePermissionOutcome, decidedBy: PermissionDecider, by: Answerer = {}): boolean {
    if (entry.resolved) return false;
    entry.resolved = true;
    const { sessionId, requestId, promptId } = entry;
    this.held.delete(entry);
    this.answered.add(requestId, { sessionId, outcome });
    entry.finish(outcome);
    this.events.publish(sessionId, 'permission_resolved', {
      promptId,
      data: { sessionId, requestId, outcome, ...(by.clientId !== undefined && { voterClientId: by.clientId }) },
      originatorClientId: entry.originatorClientId,
    });
    auditDecision(this.logger, { ...entry, options: entry.item.options }, outcome, decidedBy, by);
    this.changed(entry);
    return true;
  }

  /** Tells a late answer the outcome (`permission_already_resolved`), in a live session only: a closed one has no stream left. */
  private tellLate(requestId: string, sessionId: string | undefined): void {
    const late = this.answered.get(requestId);
    if (!late || (sessionId !== undefined && late.sessionId !== sessionId) || !this.sessions.hasSession(late.sessionId)) return;
    this.events.publish(late.sessionId, 'permission_already_resolved', {
      data: { sessionId: late.sessionId, requestId, outcome: late.outcome },
    });
  }

  private changed({ sessionId, promptId }: HeldRequest): void {
    for (const listener of this.listeners) listener(sessionId, promptId);
  }
}
