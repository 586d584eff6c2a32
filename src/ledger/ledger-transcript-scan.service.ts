import { Injectable } from '@nestjs/common';
import { PromptBridge } from '../bridge/prompt-bridge.js';
import { JsonlTranscriptScanService } from '../transcript/jsonl-transcript-scan.service.js';
import { TranscriptScanService } from '../turns/transcript-scan.service.js';
import type { SettledTurnStatus } from '../turns/turn-status.js';
import { statusOfTerminal } from './ledger-record.js';
import { PromptLedger } from './prompt-ledger.js';

/**
 * The runtime's {@link TranscriptScanService}: the JSONL scan, and after its
 * miss on an exact poll the prompt ledger's terminal (SPEC §18, beyond the
 * peer) — so a prompt lost in a crash reads `error / daemon_lost`, not 404.
 * The transcript's record wins whenever there is one. The ledger is not asked
 * for a prompt the bridge still holds (live, or in its overlay): the overlay
 * answers it, and a bridge-made error stays open to the agent's late outcome
 * (the deadline path of §5). `current` is the transcript's alone.
 *
 * @publicApi
 */
@Injectable()
export class LedgerTranscriptScanService extends TranscriptScanService {
  constructor(
    private readonly transcript: JsonlTranscriptScanService,
    private readonly ledger: PromptLedger,
    private readonly bridge: PromptBridge,
  ) {
    super();
  }

  async findTurnResult(sessionId: string, promptId: string): Promise<SettledTurnStatus | undefined> {
    const record = await this.transcript.findTurnResult(sessionId, promptId);
    if (record) return record;
    if (this.bridge.getLive(sessionId, promptId) || this.bridge.getOverlay(sessionId, promptId)) return undefined;
    const terminal = await this.ledger.terminalOf(sessionId, promptId);
    return terminal && statusOfTerminal(sessionId, terminal);
  }

  findNewestTurnResult(sessionId: string): Promise<SettledTurnStatus | undefined> {
    return this.transcript.findNewestTurnResult(sessionId);
  }
}
