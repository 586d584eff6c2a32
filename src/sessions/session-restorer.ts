import { Logger } from '@nestjs/common';
import type { PromptBridge } from '../bridge/prompt-bridge.js';
import type { Clock } from '../common/clock.js';
import { apiError, sessionNotFound } from '../errors/api-errors.js';
import type { SessionEventBus } from '../events/session-event-bus.js';
import type { Principal } from '../http/request-principal.js';
import type { TranscriptIdempotencyKeys } from '../idempotency/transcript-idempotency-keys.js';
import type { LedgerTerminalRecord } from '../ledger/ledger-record.js';
import type { PromptLedger } from '../ledger/prompt-ledger.js';
import type { ChatRecordingService } from '../transcript/chat-recording.service.js';
import type { TranscriptScanLimits } from '../transcript/jsonl-transcript-scan.service.js';
import { SESSION_ID_PATTERN } from '../turns/rules/limits.js';
import type { RestoredSession } from '../wire/wire-types.js';
import { createdSessionOf } from './created-session.js';
import type { SessionOwnerFiles } from './session-owner-files.js';
import type { SessionOwnership } from './session-ownership.js';
import type { SessionRegistry } from './session-registry.js';
import type { SessionStarts } from './session-starts.js';
import type { Session } from './session.js';
import type { Workspace } from './workspace.js';

/** What a load reads: the live sessions, the starts, the persisted files of a session, and what it reports live. */
export interface RestoreParts {
  registry: SessionRegistry;
  starts: SessionStarts;
  owners: SessionOwnerFiles;
  ownership: SessionOwnership;
  recorder: ChatRecordingService;
  ledger: PromptLedger;
  idempotencyKeys: TranscriptIdempotencyKeys;
  bridge: PromptBridge;
  events: SessionEventBus;
  clock: Clock;
  settings: { readonly workspaces: readonly Workspace[]; readonly scanLimits: TranscriptScanLimits };
}

/** The restore path of `POST /session/:id/load` and `/resume`: a persisted session made live again, answered in the peer's shape. */
export class SessionRestorer {
  private readonly logger = new Logger('SessionsService');

  constructor(private readonly parts: RestoreParts) {}

  /**
   * `POST /session/:id/load`: makes a persisted session live again (404 when
   * its workspace has no transcript for it) and answers it in the peer's
   * shape (docs/qwen-serve.md), with the prompt ledger's terminals (docs/ledger.md).
   */
  async load(sessionId: string, principal?: Principal): Promise<RestoredSession & { promptTerminals?: LedgerTerminalRecord[] }> {
    const { ledger } = this.parts;
    const { session, attached } = await this.restore(sessionId, true, principal);
    if (!attached) await ledger.readRewinds(session.id);
    // A load that made the session live settles the prompts a crash left in flight (docs/ledger.md) — its start did, before
    // the session was live; again here (nothing is left to settle then) in case it shared a resume's start; every load
    // answers the ledger's recent terminals.
    const promptTerminals = attached ? await ledger.recentTerminals(session.id) : await ledger.reconcileAndReadTerminals(session.id);
    return { ...this.describeRestored(session, attached), ...(promptTerminals.length > 0 && { promptTerminals }) };
  }

  /** `POST /session/:id/resume`: the load without the prompt ledger's terminals and reconciliation. */
  async resume(sessionId: string, principal?: Principal): Promise<RestoredSession> {
    const { session, attached } = await this.restore(sessionId, false, principal);
    if (!attached) await this.parts.ledger.readRewinds(session.id);
    return this.describeRestored(session, attached);
  }

  /** Makes the session live for `principal`: one it may not see is not found, and is never made live for it. */
  private async restore(sessionId: string, reconcile: boolean, principal?: Principal): Promise<{ session: Session; attached: boolean }> {
    const { registry, starts, owners } = this.parts;
    let session = registry.get(sessionId);
    const attached = session !== undefined;
    if (!session) {
      const workspace = SESSION_ID_PATTERN.test(sessionId) ? await this.workspaceWithTranscript(sessionId) : undefined;
      const visible = workspace && (await owners.visibleTo(sessionId, workspace.cwd, principal));
      if (!workspace || !visible) {
        // A cluster router may have claimed the id for this load; nothing is left holding it
        // (unless a create of that id is starting right now).
        if (!starts.isStarting(sessionId)) await this.parts.ownership.release(sessionId);
        throw sessionNotFound(sessionId);
      }
      // A load's start settles the prompts a crash left in flight before the session is live: no request then finds one of them unknown.
      const prepare = () => this.attachRestoring(sessionId, workspace, reconcile);
      session = await starts.start(sessionId, { workspace, resume: true, owner: visible.owner, prepare });
    }
    // Also when it was live, or another principal's load started it meanwhile.
    if (!registry.mayAccess(sessionId, principal)) throw sessionNotFound(sessionId);
    return { session, attached };
  }

  /** Attaches the transcript and restores the keys (a load also reconciles), detached again when that fails. */
  private async attachRestoring(sessionId: string, workspace: Workspace, reconcile: boolean): Promise<Set<string>> {
    const { recorder, ledger } = this.parts;
    await recorder.attach(sessionId, workspace.cwd);
    try {
      const clientIds = await this.restoreIdempotencyKeys(sessionId);
      if (reconcile) await ledger.reconcileAndReadTerminals(sessionId);
      return clientIds;
    } catch (error) {
      await ledger.detach(sessionId);
      await recorder.detach(sessionId);
      throw error;
    }
  }

  /**
   * The keys the session's prompts were admitted with replay after the load
   * (docs/idempotency.md), seeded before the session is live (a retry during the read
   * finds no live session rather than an empty store); resolves with the
   * client ids they were scoped to, issued for this session. A ledger it
   * cannot read fails the load with `503 ledger_unavailable`.
   */
  private async restoreIdempotencyKeys(sessionId: string): Promise<Set<string>> {
    const { ledger, idempotencyKeys } = this.parts;
    // The ledger first: a prompt still queued when its node died has no transcript record, and a
    // ledger that cannot be read leaves nothing seeded.
    const admitted = await ledger.keyedAdmissions(sessionId).catch((error: unknown) => {
      this.logger.warn(`session ${sessionId} not loaded: its ledger could not be read (${(error as Error)?.name ?? 'error'})`);
      throw apiError('ledger_unavailable', { sessionId }, { message: 'The prompt ledger could not be read; the session was not loaded' });
    });
    const clientIds = await idempotencyKeys.restore(sessionId, this.parts.settings.scanLimits);
    for (const clientId of idempotencyKeys.seed(sessionId, admitted)) clientIds.add(clientId);
    return clientIds;
  }

  private async workspaceWithTranscript(sessionId: string): Promise<Workspace | undefined> {
    for (const workspace of this.parts.settings.workspaces) {
      if (await this.parts.recorder.exists(workspace.cwd, sessionId)) return workspace;
    }
    return undefined;
  }

  private describeRestored(session: Session, attached: boolean): RestoredSession {
    const { registry, clock, bridge, events } = this.parts;
    return {
      ...createdSessionOf(registry, clock, session, attached),
      state: {},
      hasActivePrompt: bridge.pendingPrompts(session.id).length > 0,
      hasRunningBackgroundTasks: false,
      lastEventId: events.lastEventId(session.id),
      eventEpoch: events.epochOf(session.id),
    };
  }
}
