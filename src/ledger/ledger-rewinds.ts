import type { Logger } from '@nestjs/common';
import type { ChatRecordingService } from '../transcript/chat-recording.service.js';
import type { LedgerFiles, LedgerView } from './ledger-files.js';
import { rewoundPrompts, tailUuidsOf } from './ledger-tail.js';

/** Which prompts of a ledger a rewind took off the active chain: the ledger stops answering for them, as the transcript does. */
export class LedgerRewinds {
  constructor(
    private readonly files: LedgerFiles,
    private readonly recorder: ChatRecordingService,
    private readonly logger: Logger,
  ) {}

  /**
   * The rewound prompts: those of this process's rewinds, and — read once per
   * live session, so a repeated poll costs no I/O — those the transcript's
   * active chain says earlier processes rewound (a failed read rebuilds none).
   */
  async of(sessionId: string, view: LedgerView): Promise<ReadonlySet<string>> {
    const file = this.files.file(sessionId);
    if (!file) return new Set();
    if (view.records.length > 0) {
      file.rebuilt ??= this.recorder.rewindFacts(sessionId, tailUuidsOf(view.records)).then(
        (facts) => {
          if (facts) for (const promptId of rewoundPrompts(view.records, facts)) file.rewound.add(promptId);
        },
        (error: unknown) =>
          this.logger.warn(`ledger could not read the rewinds of session ${sessionId}: ${(error as Error)?.name ?? 'error'}`),
      );
      await file.rebuilt;
    }
    return file.rewound;
  }

  /** `promptId` and every later prompt are rewound (in memory; the file is not touched). */
  async forgetFrom(sessionId: string, promptId: string): Promise<void> {
    const file = this.files.file(sessionId);
    if (!file) return;
    await this.files.flush(sessionId);
    const { records } = await this.files.view(sessionId);
    const from = records.findIndex((record) => record.promptId === promptId);
    // A target older than the tail: every prompt in it came later.
    for (const record of records.slice(Math.max(0, from))) file.rewound.add(record.promptId);
    file.rewound.add(promptId);
  }
}
