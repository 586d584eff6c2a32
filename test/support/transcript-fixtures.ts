import { randomUUID } from 'node:crypto';
import type { TranscriptRecord } from '../../src/transcript/transcript-record.js';
import { buildTurnResultPayload } from '../../src/transcript/turn-result-payload.js';

/**
 * Builds JSONL transcripts for specs: a chain of records, each parented to the
 * previous one unless told otherwise.
 */
export class TranscriptBuilder {
  readonly records: TranscriptRecord[] = [];
  private last: string | null = null;

  constructor(readonly sessionId = '00000000-0000-4000-8000-000000000001') {}

  add(record: Partial<TranscriptRecord>, parentUuid: string | null = this.last): TranscriptRecord {
    const full: TranscriptRecord = {
      uuid: randomUUID(),
      parentUuid,
      sessionId: this.sessionId,
      timestamp: new Date(0).toISOString(),
      type: 'assistant',
      message: { role: 'model', parts: [{ text: 'filler' }] },
      ...record,
    };
    this.records.push(full);
    this.last = full.uuid;
    return full;
  }

  user(promptId: string, text = 'question'): TranscriptRecord {
    return this.add({ type: 'user', promptId, message: { role: 'user', parts: [{ text }] } });
  }

  turnResult(promptId: string, extra: { resultText?: string; endedAt?: number } = {}): TranscriptRecord {
    const payload = buildTurnResultPayload({
      promptId,
      state: 'completed',
      stopReason: 'end_turn',
      startedAt: 1,
      endedAt: extra.endedAt ?? 2,
      promptText: 'question',
      resultText: extra.resultText ?? `answer ${promptId}`,
    });
    return this.add({ type: 'system', subtype: 'turn_result', promptId, systemPayload: { ...payload }, message: undefined });
  }

  /** A prompt's user record, one model record and its turn_result. */
  turn(promptId: string): void {
    this.user(promptId);
    this.add({ promptId });
    this.turnResult(promptId);
  }

  filler(count: number): void {
    for (let i = 0; i < count; i += 1) this.add({});
  }

  toJsonl(): string {
    return this.records.map((r) => JSON.stringify(r)).join('\n') + '\n';
  }
}
