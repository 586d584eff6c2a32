import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { PromptBridge } from '../bridge/prompt-bridge.js';
import { CHAT_RECORDING_OPTIONS, type ChatRecordingOptions } from '../transcript/chat-recording-options.js';
import { ChatRecordingService } from '../transcript/chat-recording.service.js';
import { JsonlTranscriptScanService } from '../transcript/jsonl-transcript-scan.service.js';
import { companionPath } from '../transcript/transcript-paths.js';
import { isTerminalRecord, type LedgerTerminalRecord } from './ledger-record.js';
import { LedgerFiles } from './ledger-files.js';
import type { KeyedAdmission } from '../idempotency/recorded-idempotency.js';
import { LedgerReconciliation, type ReconciledListener } from './ledger-reconciliation.js';
import { LedgerRewinds } from './ledger-rewinds.js';
import { recentTerminalsOf } from './ledger-tail.js';
import { LedgerTransitions } from './ledger-transitions.js';

/** The ledger's name beside the transcript: `<sessionId>.ledger.jsonl`. */
export const LEDGER_SUFFIX = '.ledger.jsonl';

/**
 * The prompt ledger of docs/ledger.md beside each live session's transcript: written from the bridge's transitions
 * ({@link LedgerTransitions}), read from its tail, reconciled at `load` (docs/decisions.md#the-prompt-ledgers-writes-and-reads).
 *
 * @publicApi
 */
@Injectable()
export class PromptLedger implements OnModuleInit {
  private readonly logger = new Logger('PromptLedger');
  private readonly files: LedgerFiles;
  private readonly transitions: LedgerTransitions;
  private readonly rewinds: LedgerRewinds;
  private readonly reconciliation: LedgerReconciliation;

  constructor(
    private readonly bridge: PromptBridge,
    private readonly recorder: ChatRecordingService,
    private readonly transcript: JsonlTranscriptScanService,
    clock: Clock,
    @Inject(CHAT_RECORDING_OPTIONS) options: ChatRecordingOptions,
  ) {
    const mayWrite = options.mayWrite ?? (() => true);
    const pathOf = (sessionId: string) => this.pathOf(sessionId);
    const { logger } = this;
    this.files = new LedgerFiles(pathOf, mayWrite, logger, options.fenceOf);
    this.transitions = new LedgerTransitions({ files: this.files, recorder, clock, logger, pathOf });
    this.rewinds = new LedgerRewinds(this.files, recorder, logger);
    this.reconciliation = new LedgerReconciliation(this.files, bridge, this.transcript, clock);
  }

  // Kept for the app's life (the bridge goes with it): a graceful stop ends its sessions after the
  // modules are destroyed, and the ledger records their session_closed terminals.
  onModuleInit(): void {
    this.bridge.onTransition((transition) => this.transitions.record(transition));
    // A prompt runs only once its in_flight record is synced: one refused is withdrawn before the agent sees it.
    this.bridge.gateAdmissions((_sessionId, promptId) => this.transitions.admission(promptId));
  }

  /** Path of a live session's ledger; `undefined` when its transcript is not recorded (recording off). */
  pathOf(sessionId: string): string | undefined {
    const transcript = this.recorder.pathOf(sessionId);
    return transcript && companionPath(transcript, LEDGER_SUFFIX);
  }

  /**
   * Resolves once the prompt's `in_flight` record is written under this
   * node's fence and synced: what an admission's `202` promises. Otherwise
   * a `warn` is logged and this throws `503 session_fenced` (another node
   * claimed the session) or `503 ledger_unavailable` (the data dir refused
   * the write); the bridge, which dispatches a prompt only once its record
   * is synced, has withdrawn it (no terminal, no event) before the agent received it.
   * Nothing to wait for with recording off.
   */
  admitted(sessionId: string, promptId: string): Promise<void> {
    return this.transitions.admitted(sessionId, promptId);
  }

  /** Resolves once every append issued so far for the session has been written (or failed). */
  flush(sessionId: string): Promise<void> {
    return this.files.flush(sessionId);
  }

  /** The session leaves this node: its appends are flushed and what is held of it is let go. */
  detach(sessionId: string): Promise<void> {
    return this.files.detach(sessionId);
  }

  /**
   * The last 64 terminal records of a live session's ledger, oldest first
   * (from its last 256 KiB) — what `load` answers as `promptTerminals`, and
   * what a turn list can merge in.
   */
  async recentTerminals(sessionId: string): Promise<LedgerTerminalRecord[]> {
    return recentTerminalsOf((await this.files.view(sessionId)).records);
  }

  /**
   * Every prompt of the ledger's tail whose latest record is a terminal, in
   * the order they settled, without those a rewind took off the chain: what
   * the exact route answers from, for a list of turns to merge in (docs/turn-routes.md#turn-history).
   */
  async settledPrompts(sessionId: string): Promise<LedgerTerminalRecord[]> {
    const view = await this.files.view(sessionId);
    const rewound = await this.rewinds.of(sessionId, view);
    return [...view.latest.values()].filter(
      (record): record is LedgerTerminalRecord => isTerminalRecord(record) && !rewound.has(record.promptId),
    );
  }

  /**
   * The keyed admissions of the ledger's tail, oldest first: what a load seeds
   * the idempotency keys with, so a prompt still queued when its node died
   * keeps its key on the next owner (docs/idempotency.md).
   */
  async keyedAdmissions(sessionId: string): Promise<KeyedAdmission[]> {
    return (await this.files.view(sessionId)).records.flatMap((record) =>
      !isTerminalRecord(record) && record.idempotency ? [{ promptId: record.promptId, idempotency: record.idempotency }] : [],
    );
  }

  /** The latest terminal record of a prompt within the ledger's tail (not one a rewind took off the chain). */
  async terminalOf(sessionId: string, promptId: string): Promise<LedgerTerminalRecord | undefined> {
    const view = await this.files.view(sessionId);
    if ((await this.rewinds.of(sessionId, view)).has(promptId)) return undefined;
    const record = view.latest.get(promptId);
    return record && isTerminalRecord(record) ? record : undefined;
  }

  /**
   * Reconciliation at `load` (docs/ledger.md): every prompt whose latest record is
   * `in_flight` — and which this process does not know, so a prompt admitted
   * since the load is never taken for lost — gets a terminal once:
   * `completed / reconstructed_from_transcript` when the transcript holds its
   * `turn_result`, else `interrupted / daemon_lost`. Then the recent terminals.
   */
  async reconcileAndReadTerminals(sessionId: string): Promise<LedgerTerminalRecord[]> {
    await this.reconciliation.run(sessionId);
    return this.recentTerminals(sessionId);
  }

  /**
   * Registers what runs once a `load` has reconciled a session's ledger, before
   * the load answers, with the time the reconciliation began (its records are
   * not older): the webhook events queue what an earlier process recorded but
   * did not queue, and announce the prompts found lost. A listener's failure is its own.
   */
  onReconciled(listener: ReconciledListener): void {
    this.reconciliation.onReconciled(listener);
  }

  /**
   * A rewind took `promptId` and every later prompt off the active chain: the
   * ledger stops answering for them, as the transcript does (in memory; the
   * file is not touched).
   */
  forgetFrom(sessionId: string, promptId: string): Promise<void> {
    return this.rewinds.forgetFrom(sessionId, promptId);
  }

  /**
   * Reads, as a session becomes live here (`load`, `resume`), which prompts
   * earlier processes rewound, so that a poll's later ledger answer needs no
   * walk of the transcript (a poll that comes first does the same read once).
   */
  async readRewinds(sessionId: string): Promise<void> {
    await this.rewinds.of(sessionId, await this.files.view(sessionId));
  }
}
