import { BridgeOverlayProvider } from '../../src/turns/bridge-overlay.provider.js';
import { TerminalOverlay } from '../../src/turns/overlay/terminal-overlay.js';
import { TranscriptScanService } from '../../src/turns/transcript-scan.service.js';
import { TurnStatusService } from '../../src/turns/turn-status.service.js';
import type { LooseStatus as TurnStatus } from './loose-status.js';

/** The module's overlay, recording what the poll writes back. */
export class RecordingOverlay extends TerminalOverlay {
  writeBacks: TurnStatus[] = [];
  override writeBack(sessionId: string, status: TurnStatus, newest: boolean): void {
    this.writeBacks.push(status);
    super.writeBack(sessionId, status, newest);
  }
}

/**
 * A bridge as a host writes one: a live list of its own and the module's
 * overlay, fed each terminal. The test edits it between and during awaits.
 */
export class FakeBridge extends BridgeOverlayProvider {
  live: TurnStatus[] = [];
  readonly overlay = new RecordingOverlay();
  /** The session left this process (closed, or lost to another node). */
  gone = false;

  hasSession(): boolean {
    return !this.gone;
  }
  isClientRegistered(): boolean {
    return true;
  }
  getLive(_s: string, promptId?: string): TurnStatus | undefined {
    return promptId === undefined ? this.live[0] : this.live.find((l) => l.promptId === promptId);
  }
  /** A terminal, as the runtime publishes it: true when it was the prompt's first. */
  publish(status: TurnStatus): boolean {
    return this.overlay.publish(status);
  }
  get writeBacks(): TurnStatus[] {
    return this.overlay.writeBacks;
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
