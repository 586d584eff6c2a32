import { Injectable, Logger } from '@nestjs/common';
import { ActiveChain } from '../transcript/active-chain.js';
import { ChatRecordingService } from '../transcript/chat-recording.service.js';
import type { TranscriptScanLimits } from '../transcript/jsonl-transcript-scan.service.js';
import type { TranscriptRecord } from '../transcript/transcript-record.js';
import { TranscriptSnapshot } from '../transcript/transcript-snapshot.js';
import { IdempotencyStore } from './idempotency-store.js';
import { isRecordedIdempotency, seedAdmissionKeys, type KeyedAdmission } from './recorded-idempotency.js';

const FIELD = Buffer.from('"idempotency"');

/**
 * Gives a loaded session back the keys its prompts were admitted with: one
 * walk of the active chain within the scan window (docs/routes.md), at load, so a
 * replay after a restart (or on another node) finds its first answer and an
 * admission never scans.
 */
@Injectable()
export class TranscriptIdempotencyKeys {
  private readonly logger = new Logger('TranscriptIdempotencyKeys');

  constructor(
    private readonly recorder: ChatRecordingService,
    private readonly store: IdempotencyStore,
  ) {}

  /**
   * Seeds the store from the session's transcript and returns the client ids
   * the keys were admitted under; best effort (a failed read only loses replays).
   */
  async restore(sessionId: string, limits: TranscriptScanLimits): Promise<Set<string>> {
    const clientIds = new Set<string>();
    const path = this.recorder.pathOf(sessionId);
    if (!path) return clientIds;
    const found: TranscriptRecord[] = [];
    let snapshot: TranscriptSnapshot | undefined;
    try {
      snapshot = await TranscriptSnapshot.open(path);
      if (!snapshot || snapshot.size > limits.maxSnapshotBytes) return clientIds;
      // From the chain's tip as the recorder knows it (cluster mode): a stale owner's record after it is not walked.
      const chain = new ActiveChain(snapshot, this.recorder.chainTipOf(sessionId));
      await chain.find({ records: limits.recordsPerPage, bytes: limits.bytesPerPage }, limits.maxPages, {
        needle: FIELD,
        // Collects every keyed user record of the window; accepting none walks all of it.
        accept: (record) => {
          if (record.type === 'user' && typeof record.promptId === 'string' && isRecordedIdempotency(record.idempotency))
            found.push(record);
          return false;
        },
      });
    } catch (error) {
      this.logger.warn(`idempotency keys of session ${sessionId} not restored: ${(error as Error)?.name ?? 'error'}`);
      return clientIds;
    } finally {
      await snapshot?.close();
    }
    // Oldest first, so the store's age order holds.
    return this.seed(sessionId, found.reverse() as KeyedAdmission[]);
  }

  /** Seeds the store from admissions read elsewhere (the ledger's `in_flight` records, oldest first; docs/idempotency.md). */
  seed(sessionId: string, admissions: readonly KeyedAdmission[]): Set<string> {
    return seedAdmissionKeys(this.store, sessionId, admissions);
  }
}
