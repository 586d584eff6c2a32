import { deferred } from '../../../test/support/deferred.js';
import type { LooseStatus } from '../../../test/support/loose-status.js';
import { BridgeOverlayProvider } from '../bridge-overlay.provider.js';
import { TerminalOverlay } from '../overlay/terminal-overlay.js';
import { TranscriptScanService } from '../transcript-scan.service.js';
import { TurnStatusService } from '../turn-status.service.js';
import { InMemoryBridgeOverlay } from '../../testing/in-memory-bridge-overlay.js';
import { InMemoryTranscriptScan } from '../../testing/in-memory-transcript-scan.js';
import type { TurnStatus } from '../turn-status.js';
import { TurnWaitService, type TurnWaitRequest } from './turn-wait.service.js';

// The hand-driven bridge reaches states the real one (and the kit's InMemoryBridgeOverlay) cannot: a change
// without a notification, a provider without notifications, a status replaced in place. The last test runs on the kit's bridge.

/** A bridge whose state and notifications the test drives by hand. */
class ScriptedBridge extends BridgeOverlayProvider {
  live = new Map<string, LooseStatus>();
  readonly overlay = new TerminalOverlay();
  listeners = new Set<() => void>();
  live_session = true;
  notifications = true;
  hasSession = () => this.live_session;
  isClientRegistered = () => true;
  getLive = (_s: string, promptId?: string) => (promptId ? this.live.get(promptId) : [...this.live.values()][0]);
  override watch(_s: string, listener: () => void) {
    if (!this.notifications) return undefined;
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  notify() {
    for (const listener of [...this.listeners]) listener();
  }
  settle(promptId: string) {
    this.overlay.publish({ sessionId: 's', state: 'completed', promptId, endedAt: 2 });
    this.live.delete(promptId);
    this.notify();
  }
}

class NoScan extends TranscriptScanService {
  findTurnResult = async () => undefined;
  findNewestTurnResult = async () => undefined;
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('TurnWaitService', () => {
  let bridge: ScriptedBridge;
  let waits: TurnWaitService;
  let turns: TurnStatusService;
  /** A turn request with a wait, as the controller makes it: its first answer, then the wait. */
  const held = async (request: TurnWaitRequest, service = waits, source = turns): Promise<TurnStatus> =>
    service.wait(request, await source.getTurn(request.sessionId, request.promptId!));
  const running = (promptId: string) => ({ sessionId: 's', state: 'running', promptId, queuedAt: 1, startedAt: 1 });

  beforeEach(() => {
    bridge = new ScriptedBridge();
    turns = new TurnStatusService(bridge, new NoScan());
    waits = new TurnWaitService(turns, bridge, bridge, { maxWaitMs: 60_000, maxWaiters: 2 });
    bridge.live.set('p', running('p'));
  });
  afterEach(() => waits.beforeApplicationShutdown());

  it('holds until a notification makes the answer terminal; notifications that change nothing keep it held', async () => {
    const answer = held({ sessionId: 's', promptId: 'p', waitMs: 60_000 });
    let done = false;
    void answer.then(() => (done = true));
    await flush();
    expect(waits.waiting).toBe(1);
    bridge.notify(); // still running
    await flush();
    expect(done).toBe(false);
    bridge.settle('p');
    await expect(answer).resolves.toMatchObject({ state: 'completed', promptId: 'p' });
    expect(waits.waiting).toBe(0);
    expect(bridge.listeners.size).toBe(0);
  });

  it('without If-None-Match, answers when the running turn comes to wait on a request for approval, and at once while it does', async () => {
    const answer = held({ sessionId: 's', promptId: 'p', waitMs: 60_000 });
    let done = false;
    void answer.then(() => (done = true));
    await flush();
    expect(done).toBe(false);
    const request = { requestId: 's.0123456789abcdef', kind: 'permission', createdAt: '2026-12-03T00:00:00.000Z', action: {}, options: [] };
    bridge.live.set('p', { ...running('p'), pendingInteractions: [request] });
    bridge.notify();
    await expect(answer).resolves.toMatchObject({ state: 'running', pendingInteractions: [request] });
    expect(waits.waiting).toBe(0);
    // A poller that comes back while the request still waits is answered at once: only a client can move the turn on.
    await expect(held({ sessionId: 's', promptId: 'p', waitMs: 60_000 })).resolves.toMatchObject({ pendingInteractions: [request] });
    expect(waits.waiting).toBe(0);
  });

  it('does not miss a change that lands between the first poll and the watch', async () => {
    const answer = held({ sessionId: 's', promptId: 'p', waitMs: 60_000 });
    bridge.live.delete('p'); // settles silently before the waiter is registered
    bridge.overlay.publish({ sessionId: 's', state: 'completed', promptId: 'p', endedAt: 2 });
    await expect(answer).resolves.toMatchObject({ state: 'completed' });
  });

  it('caps waiters, and a released waiter frees its place', async () => {
    const controller = new AbortController();
    const first = held({ sessionId: 's', promptId: 'p', waitMs: 60_000, signal: controller.signal });
    const second = held({ sessionId: 's', promptId: 'p', waitMs: 60_000 });
    await flush();
    await expect(held({ sessionId: 's', promptId: 'p', waitMs: 60_000 })).rejects.toMatchObject({
      status: 503,
      code: 'too_many_waiters',
    });
    controller.abort();
    await expect(first).resolves.toMatchObject({ state: 'running' });
    expect(waits.waiting).toBe(1);
    bridge.settle('p');
    await expect(second).resolves.toMatchObject({ state: 'completed' });
  });

  it('answers at the deadline with a fresh poll', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    try {
      const answer = held({ sessionId: 's', promptId: 'p', waitMs: 1_000 });
      await flush();
      bridge.live.set('p', { ...running('p'), startedAt: 5 }); // changed without a notification
      jest.advanceTimersByTime(1_000);
      await expect(answer).resolves.toMatchObject({ state: 'running', startedAt: 5 });
      expect(waits.waiting).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('answers 404 session_not_found when the session goes away during the wait', async () => {
    const answer = held({ sessionId: 's', promptId: 'p', waitMs: 60_000 });
    await flush();
    bridge.live_session = false;
    bridge.notify();
    await expect(answer).rejects.toMatchObject({ status: 404, code: 'session_not_found' });
    expect(waits.waiting).toBe(0);
  });

  it('wakes everything on shutdown, and a provider without notifications answers at once', async () => {
    const waiting = held({ sessionId: 's', promptId: 'p', waitMs: 60_000 });
    await flush();
    waits.beforeApplicationShutdown();
    await expect(waiting).resolves.toMatchObject({ state: 'running' });
    await expect(held({ sessionId: 's', promptId: 'p', waitMs: 60_000 })).rejects.toMatchObject({ status: 503, code: 'shutting_down' });

    const silent = new ScriptedBridge();
    silent.notifications = false;
    silent.live.set('p', running('p'));
    const silentTurns = new TurnStatusService(silent, new NoScan());
    const plain = new TurnWaitService(silentTurns, silent, silent, {});
    await expect(held({ sessionId: 's', promptId: 'p', waitMs: 60_000 }, plain, silentTurns)).resolves.toMatchObject({
      state: 'running',
    });
    expect(plain.waiting).toBe(0);
  });

  it('with If-None-Match, holds while the ETag is the same, even on a settled prompt', async () => {
    bridge.settle('p');
    const first = await turns.getTurn('s', 'p');
    const { serializeTurnStatus } = await import('../serialized-turn-status.js');
    const gate = deferred<void>();
    const answer = held({ sessionId: 's', promptId: 'p', waitMs: 60_000, ifNoneMatch: serializeTurnStatus(first).etag });
    void answer.then(() => gate.resolve());
    await flush();
    expect(waits.waiting).toBe(1);
    // What a poll's write-back does: the held entry is replaced in place.
    bridge.overlay.writeBack('s', { sessionId: 's', state: 'completed', promptId: 'p', endedAt: 2, resultText: 'more' }, false);
    bridge.notify();
    await gate.promise;
    await expect(answer).resolves.toMatchObject({ resultText: 'more' });
  });

  it('answers at once when the first answer is what the request waits for, holding nothing', async () => {
    bridge.settle('p');
    await expect(held({ sessionId: 's', promptId: 'p', waitMs: 60_000 })).resolves.toMatchObject({ state: 'completed' });
    expect(waits.waiting).toBe(0);
    expect(bridge.listeners.size).toBe(0);
  });

  it('holds on the kit bridge until the prompt completes, and checks the session only on its fresh polls', async () => {
    const kit = new InMemoryBridgeOverlay().addSession('s');
    const promptId = kit.admit('s', 'hello');
    kit.start('s');
    const kitTurns = new TurnStatusService(kit, new InMemoryTranscriptScan());
    const hasSession = jest.spyOn(kit, 'hasSession');
    const kitWaits = new TurnWaitService(kitTurns, kit, kit, {});
    const answer = held({ sessionId: 's', promptId, waitMs: 60_000 }, kitWaits, kitTurns);
    await flush();
    expect(kitWaits.waiting).toBe(1);
    expect(hasSession).toHaveBeenCalledTimes(1); // the look after the watch; the first answer is the guard's to check
    kit.complete('s', { resultText: 'hi' });
    await expect(answer).resolves.toMatchObject({ state: 'completed', resultText: 'hi' });
    expect(kit.watching('s')).toBe(0);
    kitWaits.beforeApplicationShutdown();
  });
});
