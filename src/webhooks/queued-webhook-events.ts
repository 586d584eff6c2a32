import { Inject, Injectable } from '@nestjs/common';
import { appendFile } from 'node:fs/promises';
import { Clock } from '../common/clock.js';
import { readTailLines } from '../ledger/ledger-tail.js';
import { CHAT_RECORDING_OPTIONS, ChatRecordingService, type ChatRecordingOptions } from '../transcript/chat-recording.service.js';
import type { TurnWebhookEventType } from './turn-webhook-event.js';

/** The file beside a transcript that records which terminal events were queued: `<sessionId>.webhook-events.jsonl`. */
const SUFFIX = '.webhook-events.jsonl';
/** How much of it a `load` reads: far more lines than the ledger's 64 recent terminals need. */
const TAIL_BYTES = 64 * 1024;

/** The key of one event of one prompt. */
export const queuedKey = (promptId: string, type: TurnWebhookEventType) => `${promptId} ${type}`;

/**
 * Which terminal events of a session have reached the webhook outbox: a line
 * per event, appended once its deliveries are queued. A `load` compares it with
 * the prompt ledger's terminals to queue what a crash left between the
 * terminal's record and the outbox write. Only the session's owner appends.
 */
@Injectable()
export class QueuedWebhookEvents {
  constructor(
    private readonly recorder: ChatRecordingService,
    private readonly clock: Clock,
    @Inject(CHAT_RECORDING_OPTIONS) private readonly options: ChatRecordingOptions,
  ) {}

  /** Records that the event's deliveries are in the outbox (nothing for a session not recorded here). */
  async mark(sessionId: string, promptId: string, type: TurnWebhookEventType): Promise<void> {
    const file = this.recorder.companionPath(sessionId, SUFFIX);
    if (!file || (await (this.options.mayWrite?.(sessionId) ?? true)) === false) return;
    await appendFile(file, `${JSON.stringify({ promptId, type, at: this.clock.now() })}\n`, { mode: 0o600 });
  }

  /** The events recorded for a live session, as {@link queuedKey}s (a torn line is skipped). */
  async of(sessionId: string): Promise<Set<string>> {
    const file = this.recorder.companionPath(sessionId, SUFFIX);
    const keys = new Set<string>();
    if (!file) return keys;
    for (const line of (await readTailLines(file, TAIL_BYTES)).lines) {
      try {
        const { promptId, type } = JSON.parse(line) as { promptId?: unknown; type?: unknown };
        if (typeof promptId === 'string' && typeof type === 'string') keys.add(queuedKey(promptId, type as TurnWebhookEventType));
      } catch {
        // A line a kill -9 tore: its event is queued again, under the same webhook-id.
      }
    }
    return keys;
  }
}
