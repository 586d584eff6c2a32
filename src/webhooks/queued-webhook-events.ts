import { Inject, Injectable } from '@nestjs/common';
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Clock } from '../common/clock.js';
import { readTailLines } from '../transcript/tail-lines.js';
import { CHAT_RECORDING_OPTIONS, ChatRecordingService, type ChatRecordingOptions } from '../transcript/chat-recording.service.js';
import type { TurnWebhookEventType } from './turn-webhook-event.js';

/** The file beside a transcript that records which terminal events were decided: `<sessionId>.webhook-events.jsonl`. */
const SUFFIX = '.webhook-events.jsonl';
/** How much of it a `load` reads: far more lines than the ledger's 64 recent terminals need. */
const TAIL_BYTES = 64 * 1024;

/** The key of one event of one prompt. */
export const queuedKey = (promptId: string, type: TurnWebhookEventType) => `${promptId} ${type}`;

/** What a `load` finds: the terminal events decided since `from` (epoch ms); no `from` when the file is absent. */
export interface QueuedEvents {
  from?: number;
  keys: Set<string>;
}

/**
 * Which terminal events of a session were decided — queued to the outbox,
 * or owed to no receiver: a line each, appended once that is done. The file
 * starts with the session's first admission here, so a `load` can tell the
 * terminals a crash left between the ledger's record and the outbox write
 * (after its first line, not recorded) from those of sessions older than it.
 * Only the session's owner writes.
 */
@Injectable()
export class QueuedWebhookEvents {
  constructor(
    private readonly recorder: ChatRecordingService,
    private readonly clock: Clock,
    @Inject(CHAT_RECORDING_OPTIONS) private readonly options: ChatRecordingOptions,
  ) {}

  /** The file of a live session; found while its transcript is attached (a close detaches it). */
  fileOf(sessionId: string): string | undefined {
    return this.recorder.companionPath(sessionId, SUFFIX);
  }

  /** Starts the file, unless it exists: terminals from `since` (default now) on are accounted for. */
  async begin(sessionId: string, file: string | undefined, since = this.clock.now()): Promise<void> {
    if (!file || !(await this.mayWrite(sessionId))) return;
    // A session's first admission may come before its transcript's first line (and directory).
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${JSON.stringify({ since })}\n`, { flag: 'wx', mode: 0o600 }).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    });
  }

  /** Records that the event of a terminal was decided. */
  async mark(sessionId: string, file: string | undefined, promptId: string, type: TurnWebhookEventType): Promise<void> {
    if (!file || !(await this.mayWrite(sessionId))) return;
    // A line first, so one a kill -9 tore (no newline) does not swallow this one.
    await appendFile(file, `\n${JSON.stringify({ promptId, type, at: this.clock.now() })}\n`, { mode: 0o600 });
  }

  /** What the file of a live session records (a torn line is skipped). */
  async read(sessionId: string): Promise<QueuedEvents> {
    const file = this.fileOf(sessionId);
    const events: QueuedEvents = { keys: new Set() };
    if (!file) return events;
    const { lines, bytesRead } = await readTailLines(file, TAIL_BYTES);
    if (bytesRead === 0) return events;
    for (const line of lines) {
      let record: { promptId?: unknown; type?: unknown; at?: unknown; since?: unknown };
      try {
        record = JSON.parse(line);
      } catch {
        continue; // torn by a kill -9: its event is queued again, under the same webhook-id
      }
      const at = typeof record.since === 'number' ? record.since : record.at;
      if (events.from === undefined && typeof at === 'number') events.from = at;
      if (typeof record.promptId === 'string' && typeof record.type === 'string') {
        events.keys.add(queuedKey(record.promptId, record.type as TurnWebhookEventType));
      }
    }
    events.from ??= 0;
    return events;
  }

  private async mayWrite(sessionId: string): Promise<boolean> {
    return (await (this.options.mayWrite?.(sessionId) ?? true)) !== false;
  }
}
