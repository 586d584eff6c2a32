import { Logger } from '@nestjs/common';
import type { PromptBridge } from '../bridge/prompt-bridge.js';
import type { SessionEventBus } from '../events/session-event-bus.js';
import type { PromptLedger } from '../ledger/prompt-ledger.js';
import type { ChatRecordingService } from '../transcript/chat-recording.service.js';
import type { SessionOwnership } from './session-ownership.js';
import type { SessionRegistry } from './session-registry.js';
import type { Session } from './session.js';

/**
 * Why a session ends on this node: closed by a client, idle too long (closed as a client closes it), lost to
 * another node, or the daemon stops.
 */
export type SessionEnd = 'closed' | 'idle' | 'lost' | 'shutdown';

/** What a teardown stops, in the order it stops them. */
export interface TeardownParts {
  registry: SessionRegistry;
  bridge: PromptBridge;
  events: SessionEventBus;
  recorder: ChatRecordingService;
  ledger: PromptLedger;
  ownership: SessionOwnership;
}

/**
 * The one teardown of a live session, whatever ends it, and the teardowns
 * under way (so shutdown waits for a close already running).
 */
export class SessionTeardown {
  private readonly logger = new Logger('SessionsService');
  private readonly ending = new Map<string, Promise<void>>();

  constructor(private readonly parts: TeardownParts) {}

  /**
   * Ends the session. Only a close has a caller to answer: a reap, a loss or
   * a shutdown logs its failure and never rejects.
   */
  end(session: Session, end: SessionEnd): Promise<void> {
    const ending = this.tearDown(session, end).finally(() => this.ending.delete(session.id));
    this.ending.set(session.id, ending);
    if (end === 'closed') return ending;
    return ending.catch((error: unknown) =>
      this.logger.error(`session ${session.id} teardown (${end}) failed: ${(error as Error)?.name ?? 'error'}`),
    );
  }

  /**
   * Lets go of a session lost before it was live (its start read its files,
   * nothing ran): as a `lost` teardown does, it writes nothing more — another
   * node may be writing its transcript — and has nothing to release.
   */
  async abandonStart(sessionId: string): Promise<void> {
    this.parts.recorder.abandon(sessionId);
    await this.parts.ledger.detach(sessionId);
  }

  /** Settles once every teardown under way has. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.ending.values()]);
  }

  /**
   * In one order: out of the registry (nothing more is admitted), the admissions still being recorded
   * are decided (one refused — a `lost` session's, fenced — is withdrawn unannounced), the bridge ends
   * its prompts (`session_closed`) and wakes their waiters, its streams end (after those terminals), the
   * engine stops, the transcript is flushed, and ownership goes last (another node loads the session
   * only after its last record). A `lost` session writes nothing more (another node may be writing its
   * transcript) and has nothing to release.
   */
  private async tearDown(session: Session, end: SessionEnd): Promise<void> {
    const { registry, bridge, events, recorder, ledger, ownership } = this.parts;
    const owned = end !== 'lost';
    try {
      if (!owned) recorder.abandon(session.id);
      registry.remove(session.id);
      // Bounded by the ledger's write under way, which the detach below waits for anyway.
      await bridge.admissionsDecided(session.id);
      bridge.closeSession(session.id);
      events.close(session.id);
      // A lost session's workspace is the new owner's: its agent stops at once, with no grace.
      await session.close({ immediate: !owned });
      if (owned) await recorder.detach(session.id);
      await ledger.detach(session.id);
    } finally {
      if (owned) await ownership.release(session.id);
    }
  }
}
