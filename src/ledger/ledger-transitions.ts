import type { Logger } from '@nestjs/common';
import type { TurnTransition } from '../bridge/prompt-bridge.js';
import type { Clock } from '../common/clock.js';
import { ledgerUnavailable, sessionFenced } from '../errors/api-errors.js';
import type { ChatRecordingService } from '../transcript/chat-recording.service.js';
import { isSettledStatus } from '../turns/turn-status.js';
import { LedgerWriteError, type LedgerFiles } from './ledger-files.js';
import { inFlightRecord, terminalRecordOf } from './ledger-record.js';

/** What the writes need: the files, the transcript's chain (a record's parent), the time, and where the ledger is. */
export interface TransitionParts {
  files: LedgerFiles;
  recorder: ChatRecordingService;
  clock: Clock;
  logger: Logger;
  /** The live session's ledger path; `undefined` with recording off. */
  pathOf: (sessionId: string) => string | undefined;
}

/**
 * The ledger's writes, taken from the bridge's one stream of transitions: an `in_flight` record at admission, which
 * the admission's answer and the prompt's dispatch wait for, and a terminal at the first terminal publication.
 */
export class LedgerTransitions {
  /** The `in_flight` writes not yet settled, by prompt. */
  private readonly admissions = new Map<string, Promise<void>>();

  constructor(private readonly parts: TransitionParts) {}

  /** The prompt's `in_flight` write while it is under way (what the bridge's dispatch waits on), else `undefined`. */
  admission(promptId: string): Promise<void> | undefined {
    return this.admissions.get(promptId);
  }

  /** Resolves once the prompt's `in_flight` record is synced; else logs a `warn` and throws `503 session_fenced` or `ledger_unavailable`. */
  async admitted(sessionId: string, promptId: string): Promise<void> {
    const written = this.admissions.get(promptId);
    if (!written) return;
    try {
      await written;
    } catch (error) {
      const fenced = error instanceof LedgerWriteError && error.reason === 'fenced';
      const why = fenced
        ? 'this node lost the session'
        : `the ledger write failed${(error as LedgerWriteError).code ? ` (${(error as LedgerWriteError).code})` : ''}`;
      this.parts.logger.warn(`prompt ${promptId} of session ${sessionId} not admitted: ${why}`);
      throw fenced ? sessionFenced(sessionId) : ledgerUnavailable(sessionId);
    }
  }

  record(transition: TurnTransition): void {
    const { files, recorder, clock } = this.parts;
    const { sessionId, promptId, status } = transition;
    if (transition.kind === 'admitted') {
      const record = inFlightRecord(promptId, status.queuedAt ?? clock.now(), recorder.lastUuidOf(sessionId), transition.idempotency);
      const written = files.append(sessionId, record);
      // Recording off: nothing to wait for, and the prompt is dispatched at once.
      if (this.parts.pathOf(sessionId) === undefined) return;
      // Held until it settles, for the bridge's dispatch and the admission's answer to wait on (both ask in the same tick).
      this.admissions.set(promptId, written);
      void written.catch(() => undefined).finally(() => this.admissions.delete(promptId));
    } else if (transition.kind === 'settled' && isSettledStatus(status)) {
      files.append(sessionId, terminalRecordOf(status));
    }
  }
}
