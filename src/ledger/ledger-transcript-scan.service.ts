import { Injectable } from '@nestjs/common';
import { PromptBridge } from '../bridge/prompt-bridge.js';
import { JsonlTranscriptScanService } from '../transcript/jsonl-transcript-scan.service.js';
import { TranscriptScanService } from '../turns/transcript-scan.service.js';
import type { SettledTurnStatus } from '../turns/turn-status.js';
import { statusOfTerminal } from './ledger-record.js';
import { PromptLedger } from './prompt-ledger.js';

/**
 * The runtime's {@link TranscriptScanService}: the JSONL scan, then on an exact poll's miss the prompt ledger's
 * terminal, so a prompt lost in a crash reads `error / daemon_lost`, not 404 (docs/ledger.md).
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
    if (this.bridge.getLive(sessionId, promptId) || this.bridge.overlay.get(sessionId, promptId)) return undefined;
    const terminal = await this.ledger.terminalOf(sessionId, promptId);
    return terminal && statusOfTerminal(sessionId, terminal);
  }

  findNewestTurnResult(sessionId: string): Promise<SettledTurnStatus | undefined> {
    return this.transcript.findNewestTurnResult(sessionId);
  }

  /**
   * The scan window's results, then — for the list, as for an exact poll —
   * the ledger's recent terminals of prompts that neither the transcript nor
   * the bridge holds: each reads as the exact route would answer it.
   */
  override async listRecent(sessionId: string): Promise<SettledTurnStatus[]> {
    const records = await this.transcript.listRecent(sessionId);
    const known = new Set(records.map((record) => record.promptId));
    const terminals: SettledTurnStatus[] = [];
    // The same records terminalOf answers the exact route from (rewound prompts left out).
    for (const terminal of await this.ledger.settledPrompts(sessionId)) {
      const { promptId } = terminal;
      if (known.has(promptId) || this.bridge.getLive(sessionId, promptId) || this.bridge.overlay.get(sessionId, promptId)) continue;
      terminals.push(statusOfTerminal(sessionId, terminal));
    }
    return terminals.length === 0 ? records : [...records, ...terminals];
  }
}
