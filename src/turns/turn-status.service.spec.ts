import { ApiException } from '../errors/api-exception.js';
import { TerminalOverlay } from '../bridge/terminal-overlay.js';
import { BridgeOverlayProvider, type OverlayEntry } from './bridge-overlay.provider.js';
import { TranscriptScanService } from './transcript-scan.service.js';
import { TurnStatusService } from './turn-status.service.js';
import type { LooseStatus as TurnStatus } from '../../test/support/loose-status.js';

/** A bridge whose state the test edits directly, between and during awaits. */
class FakeBridge extends BridgeOverlayProvider {
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
class ControlledScan extends TranscriptScanService {
  calls: Array<{ promptId?: string; resolve: (r: TurnStatus | undefined) => void; reject: (e: unknown) => void }> = [];
  findTurnResult(_s: string, promptId: string): Promise<TurnStatus | undefined> {
    return new Promise((resolve, reject) => this.calls.push({ promptId, resolve, reject }));
  }
  findNewestTurnResult(): Promise<TurnStatus | undefined> {
    return new Promise((resolve, reject) => this.calls.push({ resolve, reject }));
  }
  /** Waits until the service has issued its scan (it awaits nothing before). */
  get last() {
    return this.calls.at(-1)!;
  }
}

const S = 's';
const completed = (promptId: string, extra: Partial<TurnStatus> = {}): TurnStatus => ({
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
const persisted = (promptId: string, extra: Partial<TurnStatus> = {}): TurnStatus => {
  const { queuedAt: _dropped, ...rest } = completed(promptId, extra);
  return { ...rest, resultText: `answer ${promptId}`, ...extra };
};

describe('TurnStatusService', () => {
  let bridge: FakeBridge;
  let scan: ControlledScan;
  let service: TurnStatusService;

  beforeEach(() => {
    bridge = new FakeBridge();
    scan = new ControlledScan();
    service = new TurnStatusService(bridge, scan);
  });

  describe('from memory, without a scan', () => {
    it('answers live state first', async () => {
      bridge.live = [{ sessionId: S, state: 'running', promptId: 'p', queuedAt: 1, startedAt: 2 }];
      bridge.publish(completed('p')); // cannot happen in the bridge; live must still win
      await expect(service.getTurn(S, 'p')).resolves.toMatchObject({ state: 'running' });
      await expect(service.getCurrent(S)).resolves.toMatchObject({ state: 'running' });
      expect(scan.calls).toHaveLength(0);
    });

    it('serves written-back answers, also for current in steady state', async () => {
      bridge.writeBack(S, completed('p', { resultText: 'r' }), true);
      await expect(service.getTurn(S, 'p')).resolves.toMatchObject({ resultText: 'r' });
      await expect(service.getCurrent(S)).resolves.toMatchObject({ promptId: 'p' });
      expect(scan.calls).toHaveLength(0);
    });
  });

  describe('peek: memory alone', () => {
    it('answers live and final statuses, and nothing where only the transcript can tell', () => {
      bridge.live = [{ sessionId: S, state: 'running', promptId: 'p', queuedAt: 1, startedAt: 2 }];
      expect(service.peek(S, 'p')).toMatchObject({ state: 'running' });
      expect(service.peek(S)).toMatchObject({ state: 'running', promptId: 'p' });
      bridge.publish(completed('q')); // the bridge's own terminal still needs its record
      expect(service.peek(S, 'q')).toBeUndefined();
      expect(service.peek(S, 'never-seen')).toBeUndefined();
      bridge.writeBack(S, completed('q', { resultText: 'r' }), false);
      expect(service.peek(S, 'q')).toMatchObject({ resultText: 'r' });
      expect(scan.calls).toHaveLength(0);
    });
  });

  describe('reads in flight', () => {
    it('share one scan between concurrent polls of a prompt, and forget it once answered', async () => {
      bridge.publish(completed('p'));
      const first = service.getTurn(S, 'p');
      const second = service.getTurn(S, 'p');
      const other = service.getTurn(S, 'other');
      expect(scan.calls.map((c) => c.promptId)).toEqual(['p', 'other']);
      scan.calls[0]!.resolve(persisted('p'));
      scan.calls[1]!.resolve(undefined);
      await expect(first).resolves.toMatchObject({ resultText: 'answer p' });
      await expect(second).resolves.toBe(await first);
      await expect(other).rejects.toMatchObject({ code: 'prompt_not_found' });
      const again = service.getTurn(S, 'other');
      expect(scan.calls).toHaveLength(3);
      scan.last.resolve(undefined);
      await expect(again).rejects.toMatchObject({ code: 'prompt_not_found' });
    });
  });

  describe('merge and write-back', () => {
    it('enriches the overlay with the persisted result, writes it back, and scans once', async () => {
      bridge.publish(completed('p'));
      const poll = service.getTurn(S, 'p');
      scan.last.resolve(persisted('p'));
      const answer = await poll;
      expect(answer).toEqual({ ...completed('p'), resultText: 'answer p' });
      expect(bridge.getOverlay(S, 'p')?.combined).toBe(true);
      await expect(service.getTurn(S, 'p')).resolves.toEqual(answer);
      expect(scan.calls).toHaveLength(1);
    });

    it('writes back a persisted-only answer (no queuedAt)', async () => {
      const poll = service.getTurn(S, 'old');
      scan.last.resolve(persisted('old'));
      const answer = await poll;
      expect(answer).not.toHaveProperty('queuedAt');
      expect(bridge.writeBacks).toEqual([answer]);
    });

    it('does not let an exact lookup of an old prompt become the current answer (after a restart)', async () => {
      const exact = service.getTurn(S, 'old');
      scan.last.resolve(persisted('old', { endedAt: 3 }));
      await exact;
      const current = service.getCurrent(S);
      expect(scan.calls).toHaveLength(2);
      scan.last.resolve(persisted('newer', { endedAt: 9 }));
      await expect(current).resolves.toMatchObject({ promptId: 'newer' });
      await expect(service.getCurrent(S)).resolves.toMatchObject({ promptId: 'newer' });
      expect(scan.calls).toHaveLength(2);
    });

    it('answers 404 prompt_not_found when no source has the prompt', async () => {
      const poll = service.getTurn(S, 'ghost');
      scan.last.resolve(undefined);
      await expect(poll).rejects.toMatchObject({ status: 404, code: 'prompt_not_found', details: { sessionId: S, promptId: 'ghost' } });
    });

    it('returns an overlay entry without a record as is, and does not write it back', async () => {
      const removed: TurnStatus = { sessionId: S, state: 'cancelled', promptId: 'q', queuedAt: 1, endedAt: 2, stopReason: 'cancelled' };
      bridge.publish(removed);
      const poll = service.getTurn(S, 'q');
      scan.last.resolve(undefined);
      await expect(poll).resolves.toEqual(removed);
      expect(bridge.writeBacks).toHaveLength(0);
    });
  });

  describe('deadline path', () => {
    const deadlineError = (promptId: string): TurnStatus => ({
      sessionId: S,
      state: 'error',
      promptId,
      promptText: 'long job',
      queuedAt: 1,
      startedAt: 2,
      endedAt: 4,
      error: { message: 'Prompt deadline exceeded', code: 'prompt_deadline_exceeded' },
    });

    it('reads error before the agent settles, and the persisted completion after', async () => {
      bridge.publish(deadlineError('p'));
      const before = service.getTurn(S, 'p');
      scan.last.resolve(undefined);
      await expect(before).resolves.toMatchObject({ state: 'error' });

      const after = service.getTurn(S, 'p');
      scan.last.resolve(persisted('p', { endedAt: 9, promptText: 'long job' }));
      const answer = await after;
      expect(answer).toEqual({ ...persisted('p', { endedAt: 9 }), promptText: 'long job', queuedAt: 1 });
      expect(answer).not.toHaveProperty('error');
      // Served from memory from now on.
      await expect(service.getTurn(S, 'p')).resolves.toEqual(answer);
      expect(scan.calls).toHaveLength(2);
    });

    it('lets a persisted cancellation supersede the error too', async () => {
      bridge.publish(deadlineError('p'));
      const poll = service.getTurn(S, 'p');
      scan.last.resolve(persisted('p', { state: 'cancelled', stopReason: 'cancelled', resultText: undefined }));
      await expect(poll).resolves.toMatchObject({ state: 'cancelled', stopReason: 'cancelled', queuedAt: 1 });
    });

    it('keeps the current poll scanning while the newest entry is a bridge error', async () => {
      bridge.publish(completed('a'));
      bridge.publish(deadlineError('b'));
      const poll = service.getCurrent(S);
      scan.last.resolve(persisted('a'));
      await expect(poll).resolves.toMatchObject({ promptId: 'b', state: 'error' });
      expect(bridge.writeBacks).toHaveLength(0);
    });
  });

  describe('re-read after the awaited scan', () => {
    it('answers a prompt that started while the scan was in flight (current)', async () => {
      bridge.publish(completed('a'));
      const poll = service.getCurrent(S);
      bridge.live = [{ sessionId: S, state: 'running', promptId: 'b', queuedAt: 5, startedAt: 6 }];
      scan.last.resolve(persisted('a'));
      await expect(poll).resolves.toMatchObject({ promptId: 'b', state: 'running' });
    });

    it('prefers a terminal published during the scan and never lets the write-back hide it', async () => {
      bridge.publish(completed('a'));
      const poll = service.getCurrent(S);
      bridge.publish(completed('b', { endedAt: 10 }));
      scan.last.resolve(persisted('a'));
      await expect(poll).resolves.toMatchObject({ promptId: 'b' });
      await expect(service.getCurrent(S)).resolves.toMatchObject({ promptId: 'b' });
      expect(bridge.getOverlay(S, 'a')?.combined).toBe(false);
    });

    it('serves an answer a concurrent poll wrote back during the scan', async () => {
      bridge.publish(completed('p'));
      const first = service.getTurn(S, 'p');
      const second = service.getCurrent(S); // not shared with the exact poll: a read of its own
      scan.calls[1]!.resolve(persisted('p', { resultText: 'fresh' }));
      await second;
      scan.calls[0]!.resolve(persisted('p', { resultText: 'stale' }));
      await expect(first).resolves.toMatchObject({ resultText: 'fresh' });
      expect(bridge.writeBacks).toHaveLength(1);
    });

    it('answers from the overlay when the scan fails', async () => {
      bridge.publish(completed('p'));
      const poll = service.getTurn(S, 'p');
      scan.last.reject(new ApiException(409, 'transcript_snapshot_unavailable', 'x'));
      await expect(poll).resolves.toEqual(completed('p'));
      expect(bridge.writeBacks).toHaveLength(0);
    });

    it('re-reads live state after a failed scan, too', async () => {
      const poll = service.getCurrent(S);
      bridge.live = [{ sessionId: S, state: 'queued', promptId: 'n', queuedAt: 7 }];
      scan.last.reject(new Error('disk gone'));
      await expect(poll).resolves.toMatchObject({ promptId: 'n', state: 'queued' });
    });

    it('surfaces a structured scan error when nothing else knows the prompt, never as not-found', async () => {
      const error = new ApiException(413, 'transcript_too_large', 'x', { snapshotSize: 9, maxBytes: 1 });
      const exact = service.getTurn(S, 'p');
      scan.last.reject(error);
      await expect(exact).rejects.toBe(error);
      const current = service.getCurrent(S);
      scan.last.reject(error);
      await expect(current).rejects.toBe(error);
    });

    it('discards a scan result that predates a rewind finishing during the await', async () => {
      const exact = service.getTurn(S, 'p');
      const current = service.getCurrent(S);
      bridge.generation += 1;
      bridge.overlay.clear();
      scan.calls[0]!.resolve(persisted('p'));
      scan.calls[1]!.resolve(persisted('p'));
      await expect(exact).rejects.toMatchObject({ code: 'prompt_not_found' });
      await expect(current).resolves.toEqual({ sessionId: S, state: 'idle' });
      expect(bridge.writeBacks).toHaveLength(0);
    });
  });

  describe('current', () => {
    it('answers idle for a session with no turn', async () => {
      const poll = service.getCurrent(S);
      scan.last.resolve(undefined);
      await expect(poll).resolves.toEqual({ sessionId: S, state: 'idle' });
    });

    it('settles on an overlay entry that no record will ever join, e.g. a prompt removed while queued', async () => {
      bridge.publish({ sessionId: S, state: 'cancelled', promptId: 'q', queuedAt: 1, endedAt: 2, stopReason: 'cancelled' });
      const poll = service.getCurrent(S);
      scan.last.resolve(undefined);
      await expect(poll).resolves.toMatchObject({ promptId: 'q', state: 'cancelled' });
      await expect(service.getCurrent(S)).resolves.toMatchObject({ promptId: 'q' });
      expect(scan.calls).toHaveLength(1);
    });

    it('picks the newer endedAt between the overlay newest and the persisted newest', async () => {
      bridge.publish(completed('a', { endedAt: 5 }));
      const poll = service.getCurrent(S);
      scan.last.resolve(persisted('b', { endedAt: 8 }));
      await expect(poll).resolves.toMatchObject({ promptId: 'b' });
    });

    it('merges when both name the same prompt', async () => {
      bridge.publish(completed('a'));
      const poll = service.getCurrent(S);
      scan.last.resolve(persisted('a'));
      await expect(poll).resolves.toEqual({ ...completed('a'), resultText: 'answer a' });
      await service.getCurrent(S);
      expect(scan.calls).toHaveLength(1);
    });
  });
});
