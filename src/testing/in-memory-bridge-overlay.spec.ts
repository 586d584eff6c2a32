import { InMemoryBridgeOverlay } from './in-memory-bridge-overlay.js';

describe('InMemoryBridgeOverlay (the bridge’s queue core, driven by hand)', () => {
  let time: number;
  let bridge: InMemoryBridgeOverlay;

  beforeEach(() => {
    time = 100;
    bridge = new InMemoryBridgeOverlay({ now: () => (time += 1) }).addSession('s', { clientIds: ['c1'] });
  });

  it('keeps the first terminal: a prompt that expired stays expired when it completes later', () => {
    const promptId = bridge.admit('s', 'slow');
    bridge.start('s');
    expect(bridge.expire('s', promptId)).toMatchObject({ state: 'error', error: { code: 'prompt_deadline_exceeded' } });
    expect(bridge.complete('s', { promptId, resultText: 'late' })).toMatchObject({ state: 'error' });
    expect(bridge.overlay.get('s', promptId)?.status.state).toBe('error');
    expect(bridge.getLive('s')).toBeUndefined(); // the FIFO moved on; nothing is dispatched by itself
  });

  it('runs one prompt at a time: a second start waits for the first to settle', () => {
    const first = bridge.admit('s', 'a');
    const second = bridge.admit('s', 'b');
    expect(bridge.start('s')).toBe(first);
    expect(() => bridge.start('s')).toThrow(`prompt ${first} is running already`);
    bridge.complete('s', { resultText: 'A' });
    expect(bridge.start('s')).toBe(second);
    expect(bridge.listLive('s').map((s) => [s.promptId, s.state])).toEqual([[second, 'running']]);
  });

  it('wakes its watchers at each step, and answers a watch of an unknown session with undefined', () => {
    let woken = 0;
    const stop = bridge.watch('s', () => (woken += 1))!;
    bridge.admit('s', 'a');
    bridge.start('s');
    bridge.complete('s');
    expect(woken).toBe(3);
    expect(bridge.watching('s')).toBe(1);
    stop();
    expect(bridge.watching('s')).toBe(0);
    expect(bridge.watch('nope', () => undefined)).toBeUndefined();
  });

  it('rewinds as the reference bridge does: refused while a prompt is pending, then the overlay is cleared', () => {
    const promptId = bridge.admit('s', 'a');
    expect(() => bridge.rewind('s')).toThrow(/pending prompt/);
    bridge.start('s');
    bridge.complete('s');
    bridge.rewind('s');
    expect(bridge.overlay.generation('s')).toBe(1);
    expect(bridge.overlay.get('s', promptId)).toBeUndefined();
  });

  it('closes a session: its prompts end session_closed and the session is gone, its client ids with it', () => {
    const running = bridge.admit('s', 'a');
    bridge.start('s');
    const queued = bridge.admit('s', 'b');
    let sawSession: boolean | undefined;
    bridge.watch('s', () => (sawSession = bridge.hasSession('s')));
    bridge.closeSession('s');
    expect(sawSession).toBe(false); // a woken request sees the session gone
    expect(bridge.isClientRegistered('s', 'c1')).toBe(false);
    expect(bridge.overlay.get('s', running)).toBeUndefined();
    expect(() => bridge.admit('s', 'c')).toThrow(/not live/);
    bridge.addSession('s');
    expect(bridge.getLive('s', queued)).toBeUndefined();
  });

  it("shows the agent's requests for approval on the running turn, wakes watchers, and answers each once", async () => {
    const promptId = bridge.admit('s', 'tidy');
    expect(() => bridge.askPermission('s')).toThrow('session s has no running prompt');
    bridge.start('s');
    let woken = 0;
    bridge.watch('s', () => (woken += 1));
    const before = bridge.getLive('s', promptId);
    const { requestId, answered } = bridge.askPermission('s', { type: 'execute', title: 'rm -rf build' });
    expect(woken).toBe(1);
    const waiting = bridge.getLive('s', promptId);
    expect(waiting).not.toBe(before); // projected afresh: a new ETag
    expect(waiting).toMatchObject({
      state: 'running',
      pendingInteractions: [
        {
          requestId: 'r1',
          kind: 'permission',
          createdAt: expect.stringMatching(/^1970-01-01T00:00:00\.\d{3}Z$/),
          action: { type: 'execute', title: 'rm -rf build' },
          options: [
            { optionId: 'allow_once', label: 'Allow once', kind: 'allow_once' },
            { optionId: 'reject_once', label: 'Reject', kind: 'reject_once' },
          ],
        },
      ],
    });
    expect(() => bridge.answerPermission('s', requestId, { outcome: 'selected', optionId: 'always' })).toThrow('did not offer');
    expect(bridge.answerPermission('s', requestId, { outcome: 'selected', optionId: 'reject_once' })).toBe(true);
    expect(bridge.answerPermission('s', requestId, { outcome: 'selected', optionId: 'allow_once' })).toBe(false);
    await expect(answered).resolves.toEqual({ outcome: 'selected', optionId: 'reject_once' });
    expect(woken).toBe(2);
    expect(bridge.getLive('s', promptId)).not.toHaveProperty('pendingInteractions');
  });

  it('answers a request cancelled when its prompt ends first or its session closes; nothing stays pending', async () => {
    bridge.admit('s', 'a');
    bridge.start('s');
    const ended = bridge.askPermission('s', { title: 'one' }, { requestId: 'own-id' });
    expect(() => bridge.askPermission('s', {}, { requestId: 'own-id' })).toThrow('pending already');
    bridge.cancel('s');
    await expect(ended.answered).resolves.toEqual({ outcome: 'cancelled' });
    expect(bridge.answerPermission('s', 'own-id', { outcome: 'cancelled' })).toBe(false);

    bridge.admit('s', 'b');
    bridge.start('s');
    const closed = bridge.askPermission('s');
    bridge.closeSession('s');
    await expect(closed.answered).resolves.toEqual({ outcome: 'cancelled' });
  });
});
