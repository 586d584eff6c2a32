import type { PromptBridge } from '../bridge/prompt-bridge.js';
import type { Clock } from '../common/clock.js';
import type { JsonlTranscriptScanService } from '../transcript/jsonl-transcript-scan.service.js';
import type { LedgerFiles } from './ledger-files.js';
import { reconciledRecordOf } from './ledger-record.js';
import { danglingPrompts } from './ledger-tail.js';

/** Dangling prompts looked up in the transcript at one `load`; past it they settle as lost (a crash leaves a queue's worth). */
const MAX_RECONCILE_LOOKUPS = 64;

/** What runs once a session's ledger is reconciled, with the time the reconciliation began. */
export type ReconciledListener = (sessionId: string, startedAt: number) => Promise<void>;

/**
 * Reconciliation at `load` (docs/ledger.md): every prompt left `in_flight` that this process does not know gets a
 * terminal once, from the transcript's `turn_result` when it holds one, else as lost. One at a time per session.
 */
export class LedgerReconciliation {
  private readonly reconciling = new Map<string, Promise<void>>();
  private readonly listeners: ReconciledListener[] = [];

  constructor(
    private readonly files: LedgerFiles,
    private readonly bridge: PromptBridge,
    private readonly transcript: JsonlTranscriptScanService,
    private readonly clock: Clock,
  ) {}

  /** Reconciles the session's ledger, or waits for the reconciliation under way. */
  run(sessionId: string): Promise<void> {
    let reconciling = this.reconciling.get(sessionId);
    if (!reconciling) {
      reconciling = this.reconcile(sessionId).finally(() => this.reconciling.delete(sessionId));
      this.reconciling.set(sessionId, reconciling);
    }
    return reconciling;
  }

  onReconciled(listener: ReconciledListener): void {
    this.listeners.push(listener);
  }

  private async reconcile(sessionId: string): Promise<void> {
    const startedAt = this.clock.now();
    await this.files.flush(sessionId);
    const known = (promptId: string) =>
      this.bridge.getLive(sessionId, promptId) !== undefined || this.bridge.overlay.get(sessionId, promptId) !== undefined;
    const dangling = danglingPrompts((await this.files.view(sessionId)).latest).filter((record) => !known(record.promptId));
    let lookups = 0;
    for (const { promptId } of dangling) {
      // The transcript alone (the bounded scan of docs/ledger.md): the ledger must not answer for itself.
      const found =
        lookups++ < MAX_RECONCILE_LOOKUPS &&
        (await this.transcript.findTurnResult(sessionId, promptId).then(
          (record) => record !== undefined,
          () => false,
        ));
      this.files.append(sessionId, reconciledRecordOf(promptId, found, this.clock.now()));
    }
    await this.files.flush(sessionId);
    for (const listener of this.listeners) await listener(sessionId, startedAt).catch(() => undefined);
  }
}
