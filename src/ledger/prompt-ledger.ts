import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { PromptBridge, type TurnTransition } from '../bridge/prompt-bridge.js';
import { CHAT_RECORDING_OPTIONS, ChatRecordingService, type ChatRecordingOptions } from '../transcript/chat-recording.service.js';
import { JsonlTranscriptScanService } from '../transcript/jsonl-transcript-scan.service.js';
import { companionPath } from '../transcript/transcript-paths.js';
import { isSettledStatus } from '../turns/turn-status.js';
import {
  inFlightRecord,
  isTerminalRecord,
  reconciledRecordOf,
  terminalRecordOf,
  type LedgerRecord,
  type LedgerTerminalRecord,
} from './ledger-record.js';
import { LedgerFiles, LedgerWriteError, type LedgerView } from './ledger-files.js';
import { ledgerUnavailable, sessionFenced } from '../errors/api-errors.js';
import type { KeyedAdmission } from '../idempotency/recorded-idempotency.js';
import { danglingPrompts, recentTerminalsOf, rewoundPrompts, tailUuidsOf } from './ledger-tail.js';

/** The ledger's name beside the transcript: `<sessionId>.ledger.jsonl`. */
export const LEDGER_SUFFIX = '.ledger.jsonl';
/** Dangling prompts looked up in the transcript at one `load`; past it they settle as lost (a crash leaves a queue's worth). */
const MAX_RECONCILE_LOOKUPS = 64;

/**
 * The prompt ledger of docs/ledger.md: `<sessionId>.ledger.jsonl` beside each live
 * session's transcript (mode 0600), an `in_flight` record at admission and a
 * terminal one at the first terminal publication — both taken from the
 * bridge's one stream of transitions. Appends are serialized per session,
 * group-committed and synced ({@link LedgerFiles}); the admission's answer
 * waits for its `in_flight` record ({@link admitted}), a terminal's failure is
 * logged, never felt by the prompt. Reads look at the last
 * 256 KiB only, and concurrent reads of a session share one; the parsed tail
 * is kept until this process appends again — the node that holds a session's
 * lease is its ledger's one writer — so a repeated miss costs no I/O. It is
 * let go with the session (a read under way then keeps nothing): once back,
 * another owner may have appended.
 *
 * @publicApi
 */
@Injectable()
export class PromptLedger implements OnModuleInit {
  private readonly logger = new Logger('PromptLedger');
  private readonly files: LedgerFiles;
  private readonly reconciling = new Map<string, Promise<void>>();
  private readonly reconciledListeners: Array<(sessionId: string, startedAt: number) => Promise<void>> = [];
  /** The `in_flight` writes not yet settled, by prompt. */
  private readonly admissions = new Map<string, Promise<void>>();

  constructor(
    private readonly bridge: PromptBridge,
    private readonly recorder: ChatRecordingService,
    private readonly transcript: JsonlTranscriptScanService,
    private readonly clock: Clock,
    @Inject(CHAT_RECORDING_OPTIONS) options: ChatRecordingOptions,
  ) {
    const mayWrite = options.mayWrite ?? (() => true);
    this.files = new LedgerFiles((sessionId) => this.pathOf(sessionId), mayWrite, this.logger, options.fenceOf);
  }

  // Kept for the app's life (the bridge goes with it): a graceful stop ends its sessions after the
  // modules are destroyed, and the ledger records their session_closed terminals.
  onModuleInit(): void {
    this.bridge.onTransition((transition) => this.record(transition));
    // A prompt runs only once its in_flight record is synced: one refused is withdrawn before the agent sees it.
    this.bridge.gateAdmissions((_sessionId, promptId) => this.admissions.get(promptId));
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
      this.logger.warn(`prompt ${promptId} of session ${sessionId} not admitted: ${why}`);
      throw fenced ? sessionFenced(sessionId) : ledgerUnavailable(sessionId);
    }
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
    const rewound = await this.rewound(sessionId, view);
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
    if ((await this.rewound(sessionId, view)).has(promptId)) return undefined;
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
    let reconciling = this.reconciling.get(sessionId);
    if (!reconciling) {
      reconciling = this.reconcile(sessionId).finally(() => this.reconciling.delete(sessionId));
      this.reconciling.set(sessionId, reconciling);
    }
    await reconciling;
    return this.recentTerminals(sessionId);
  }

  /**
   * Registers what runs once a `load` has reconciled a session's ledger, before
   * the load answers, with the time the reconciliation began (its records are
   * not older): the webhook events queue what an earlier process recorded but
   * did not queue, and announce the prompts found lost. A listener's failure is its own.
   */
  onReconciled(listener: (sessionId: string, startedAt: number) => Promise<void>): void {
    this.reconciledListeners.push(listener);
  }

  /**
   * A rewind took `promptId` and every later prompt off the active chain: the
   * ledger stops answering for them, as the transcript does (in memory; the
   * file is not touched).
   */
  async forgetFrom(sessionId: string, promptId: string): Promise<void> {
    const file = this.files.file(sessionId);
    if (!file) return;
    await this.flush(sessionId);
    const { records } = await this.files.view(sessionId);
    const from = records.findIndex((record) => record.promptId === promptId);
    // A target older than the tail: every prompt in it came later.
    for (const record of records.slice(Math.max(0, from))) file.rewound.add(record.promptId);
    file.rewound.add(promptId);
  }

  /**
   * Reads, as a session becomes live here (`load`, `resume`), which prompts
   * earlier processes rewound, so that a poll's later ledger answer needs no
   * walk of the transcript (a poll that comes first does the same read once).
   */
  async readRewinds(sessionId: string): Promise<void> {
    await this.rewound(sessionId, await this.files.view(sessionId));
  }

  // --- internals ---------------------------------------------------------------

  /**
   * The rewound prompts: those of this process's rewinds, and — read once per
   * live session, so a repeated poll costs no I/O — those the transcript's
   * active chain says earlier processes rewound (a failed read rebuilds none).
   */
  private async rewound(sessionId: string, view: LedgerView): Promise<ReadonlySet<string>> {
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

  private record(transition: TurnTransition): void {
    const { sessionId, promptId, status } = transition;
    if (transition.kind === 'admitted') {
      const record = inFlightRecord(
        promptId,
        status.queuedAt ?? this.clock.now(),
        this.recorder.lastUuidOf(sessionId),
        transition.idempotency,
      );
      const written = this.files.append(sessionId, record);
      // Recording off: nothing to wait for, and the prompt is dispatched at once.
      if (this.pathOf(sessionId) === undefined) return;
      // Held until it settles, for the bridge's dispatch and the admission's answer to wait on (both ask in the same tick).
      this.admissions.set(promptId, written);
      void written.catch(() => undefined).finally(() => this.admissions.delete(promptId));
    } else if (transition.kind === 'settled' && isSettledStatus(status)) {
      this.append(sessionId, terminalRecordOf(status));
    }
  }

  private async reconcile(sessionId: string): Promise<void> {
    const startedAt = this.clock.now();
    await this.flush(sessionId);
    const known = (promptId: string) =>
      this.bridge.getLive(sessionId, promptId) !== undefined || this.bridge.overlay.get(sessionId, promptId) !== undefined;
    const dangling = danglingPrompts((await this.files.view(sessionId)).latest).filter((record) => !known(record.promptId));
    let lookups = 0;
    for (const { promptId } of dangling) {
      // The transcript alone (the bounded scan of §7): the ledger must not answer for itself.
      const found =
        lookups++ < MAX_RECONCILE_LOOKUPS &&
        (await this.transcript.findTurnResult(sessionId, promptId).then(
          (record) => record !== undefined,
          () => false,
        ));
      this.append(sessionId, reconciledRecordOf(promptId, found, this.clock.now()));
    }
    await this.flush(sessionId);
    for (const listener of this.reconciledListeners) await listener(sessionId, startedAt).catch(() => undefined);
  }

  /** Queues one record in the session's ledger file. */
  private append(sessionId: string, record: LedgerRecord): void {
    this.files.append(sessionId, record);
  }
}
