import { TerminalOverlay } from '../../src/bridge/terminal-overlay.js';
import { BridgeOverlayProvider, type OverlayEntry } from '../../src/turns/bridge-overlay.provider.js';
import { TranscriptScanService } from '../../src/turns/transcript-scan.service.js';
import { TurnStatusService } from '../../src/turns/turn-status.service.js';
import type { LooseStatus as TurnStatus } from './loose-status.js';

/** A bridge whose state the test edits directly, between and during awaits. */
export class FakeBridge extends BridgeOverlayProvider {
  live: TurnStatus[] = [];
  overlay = new TerminalOverlay(64);
  generation = 0;
  writeBacks: TurnStatus[] = [];

  hasSession(): boolean {
    return true;
  }
  isClientRegistered(): boolean {
    return true;
  }
  getLive(_s: string, promptId?: string): TurnStatus | undefined {
    return promptId === undefined ? this.live[0] : this.live.find((l) => l.promptId === promptId);
  }
  getOverlay(_s: string, promptId: string): OverlayEntry | undefined {
    return this.overlay.get(promptId);
  }
  getNewestOverlay(): OverlayEntry | undefined {
    return this.overlay.newest();
  }
  writeBack(_s: string, status: TurnStatus, newest: boolean): void {
    this.writeBacks.push(status);
    this.overlay.setReadBack(status.promptId!, { status, combined: true }, newest);
  }
  rewindGeneration(): number {
    return this.generation;
  }
  publish(status: TurnStatus): void {
    this.overlay.set(status.promptId!, { status, combined: false });
  }
}

/** A scan whose every call waits for the test to answer it. */
export class ControlledScan extends TranscriptScanService {
  calls: Array<{ promptId?: string; resolve: (r: TurnStatus | undefined) => void; reject: (e: unknown) => void }> = [];
  findTurnResult(_s: string, promptId: string): Promise<TurnStatus | undefined> {
    return new Promise((resolve, reject) => this.calls.push({ promptId, resolve, reject }));
  }
  findNewestTurnResult(): Promise<TurnStatus | undefined> {
    return new Promise((resolve, reject) => this.calls.push({ resolve, reject }));
  }
  /** The newest scan issued (the service awaits nothing before issuing it). */
  get last() {
    return this.calls.at(-1)!;
  }
}

export const S = 's';

/** A bridge terminal: completed, with the queue timestamps only the bridge knows. */
export const completed = (promptId: string, extra: Partial<TurnStatus> = {}): TurnStatus => ({
  sessionId: S,
  state: 'completed',
  promptId,
  promptText: `text ${promptId}`,
  queuedAt: 1,
  startedAt: 2,
  endedAt: 3,
  stopReason: 'end_turn',
  ...extra,
});

/** What the transcript holds for a prompt: no queuedAt, but the result text. */
export const persisted = (promptId: string, extra: Partial<TurnStatus> = {}): TurnStatus => {
  const { queuedAt: _dropped, ...rest } = completed(promptId, extra);
  return { ...rest, resultText: `answer ${promptId}`, ...extra };
};

/** A service over a fresh FakeBridge and ControlledScan. */
export function serviceRig() {
  const bridge = new FakeBridge();
  const scan = new ControlledScan();
  return { bridge, scan, service: new TurnStatusService(bridge, scan) };
}
