import { Injectable } from '@nestjs/common';
import { TranscriptScanService, type SettledTurnStatus } from 'nest-turn-status';
import { HostRuntime } from './host-runtime.js';

/** The runtime's transcript as `TurnsModule` reads it: persisted answers, newest first, never a write. */
@Injectable()
export class HostTranscriptScan extends TranscriptScanService {
  constructor(private readonly runtime: HostRuntime) {
    super();
  }

  findTurnResult(sessionId: string, promptId: string): Promise<SettledTurnStatus | undefined> {
    return Promise.resolve(this.newestFirst(sessionId).find((record) => record.promptId === promptId));
  }

  findNewestTurnResult(sessionId: string): Promise<SettledTurnStatus | undefined> {
    return Promise.resolve(this.newestFirst(sessionId)[0]);
  }

  override listRecent(sessionId: string): Promise<SettledTurnStatus[]> {
    const newest = new Map<string, SettledTurnStatus>();
    for (const record of this.newestFirst(sessionId)) if (!newest.has(record.promptId)) newest.set(record.promptId, record);
    return Promise.resolve([...newest.values()]);
  }

  private newestFirst(sessionId: string): SettledTurnStatus[] {
    return [...(this.runtime.session(sessionId)?.records ?? [])].reverse();
  }
}
