import { bridgeRig, flush, text, type BridgeRig } from '../../test/support/fake-session-runner.js';

describe('PromptBridge', () => {
  let clock: BridgeRig['clock'];
  let events: BridgeRig['events'];
  let runner: BridgeRig['runner'];
  let dispatched: BridgeRig['dispatched'];
  let published: BridgeRig['published'];
  let bridge: BridgeRig['bridge'];

  beforeEach(() => {
    ({ clock, events, runner, dispatched, published, bridge } = bridgeRig());
  });

  it('runs prompts one at a time in FIFO order', async () => {
    const b = bridge();
    const ids = ['a', 'b', 'c'].map((t) => b.admit('s', text(t)).promptId);
    expect(dispatched.map((d) => d.input.promptId)).toEqual([ids[0]]);
    expect(b.getLive('s')?.promptId).toBe(ids[0]);
    expect(b.getLive('s', ids[1]!)?.state).toBe('queued');
    dispatched[0]!.settle({});
    await flush();
    expect(dispatched.map((d) => d.input.promptId)).toEqual([ids[0], ids[1]]);
    dispatched[1]!.settle({});
    await flush();
    expect(dispatched.map((d) => d.input.promptId)).toEqual(ids);
  });

  it('stamps startedAt only at dispatch', async () => {
    const b = bridge();
    const first = b.admit('s', text('a')).promptId;
    clock.time = 2_000;
    const second = b.admit('s', text('b')).promptId;
    expect(b.getLive('s', second)).toEqual({ sessionId: 's', state: 'queued', promptId: second, promptText: 'b', queuedAt: 2_000 });
    clock.time = 3_000;
    dispatched[0]!.settle({});
    await flush();
    expect(b.getLive('s', second)).toMatchObject({ state: 'running', queuedAt: 2_000, startedAt: 3_000 });
    expect(b.overlay.get('s', first)?.status).toMatchObject({ state: 'completed', startedAt: 1_000, endedAt: 3_000 });
  });

  it('enforces the per-session limit, running included', () => {
    const b = bridge({ maxPendingPrompts: 2 });
    b.admit('s', text('a'));
    b.admit('s', text('b'));
    expect(() => b.admit('s', text('c'))).toThrow(
      expect.objectContaining({ status: 503, code: 'prompt_queue_full', details: { sessionId: 's', limit: 2, pendingCount: 2 } }),
    );
  });

  it('refuses admission with 409 session_busy while the session is being rewound', () => {
    const b = bridge();
    b.beginRewind('s');
    expect(() => b.admit('s', text('a'))).toThrow(expect.objectContaining({ code: 'session_busy' }));
    expect(() => b.beginRewind('s')).toThrow(expect.objectContaining({ code: 'session_busy' }));
    b.endRewind('s', false);
    expect(b.admit('s', text('a')).promptId).toEqual(expect.any(String));
    // A rewind needs an idle session.
    expect(() => b.beginRewind('s')).toThrow(expect.objectContaining({ status: 409, code: 'session_busy', details: { sessionId: 's' } }));
  });

  it('refuses admission with 404 session_not_found once the session is not live, and queues nothing', () => {
    const b = bridge();
    runner.live.delete('s');
    expect(() => b.admit('s', text('a'))).toThrow(expect.objectContaining({ status: 404, code: 'session_not_found' }));
    expect(b.pendingPrompts('s')).toEqual([]);
    expect(published).toEqual([]);
  });

  it('publishes cancelled at once for a removed queued prompt, with no startedAt', () => {
    const b = bridge();
    b.admit('s', text('a'));
    const queued = b.admit('s', text('b')).promptId;
    expect(b.remove('s', queued)).toBe(true);
    expect(b.getLive('s', queued)).toBeUndefined();
    expect(b.overlay.get('s', queued)?.status).toEqual({
      sessionId: 's',
      state: 'cancelled',
      promptId: queued,
      promptText: 'b',
      queuedAt: 1_000,
      endedAt: 1_000,
      stopReason: 'cancelled',
    });
    expect(b.remove('s', queued)).toBe(false);
    expect(b.pendingPrompts('s')).toHaveLength(1);
  });

  it('keeps a removed running prompt running until the Session settles it', async () => {
    const b = bridge();
    const running = b.admit('s', text('a')).promptId;
    expect(b.remove('s', running)).toBe(true);
    expect(dispatched[0]!.signal.aborted).toBe(true);
    expect(b.getLive('s', running)?.state).toBe('running');
    expect(b.remove('s', running)).toBe(false);
    dispatched[0]!.settle({ state: 'cancelled', stopReason: 'cancelled' });
    await flush();
    expect(b.getLive('s', running)).toBeUndefined();
    expect(b.overlay.get('s', running)?.status.state).toBe('cancelled');
  });

  it('announces prompt_cancelled once for a running prompt both cancelled and removed, in either order', () => {
    const b = bridge();
    const first = b.admit('s', text('a')).promptId;
    b.cancelRunning('s');
    expect(b.remove('s', first)).toBe(true);
    b.cancelRunning('s');
    expect(b.remove('s', first)).toBe(false);
    expect(dispatched[0]!.signal.aborted).toBe(true);
    expect(published.filter((e) => e.type === 'prompt_cancelled')).toEqual([{ type: 'prompt_cancelled', promptId: first }]);
  });

  it('closes a session with session_closed errors for every pending prompt', () => {
    const b = bridge();
    const running = b.admit('s', text('a')).promptId;
    const queued = b.admit('s', text('b')).promptId;
    const overlays: unknown[] = [];
    const originalPublish = events.publish.bind(events);
    jest.spyOn(events, 'publish').mockImplementation((sid, type, fields) => {
      if (type === 'turn_error') overlays.push({ promptId: fields?.promptId, error: (fields.data as { error?: unknown }).error });
      return originalPublish(sid, type, fields);
    });
    b.closeSession('s');
    expect(overlays).toEqual([
      { promptId: running, error: { message: 'Session closed', code: 'session_closed' } },
      { promptId: queued, error: { message: 'Session closed', code: 'session_closed' } },
    ]);
    expect(dispatched[0]!.signal.aborted).toBe(true);
    expect(b.pendingPrompts('s')).toEqual([]);
  });

  it('keeps only the 64 newest terminals', async () => {
    const b = bridge();
    const ids: string[] = [];
    for (let i = 0; i < 65; i += 1) {
      ids.push(b.admit('s', text(`p${i}`)).promptId);
      dispatched[i]!.settle({});
      await flush();
    }
    expect(b.overlay.get('s', ids[0]!)).toBeUndefined();
    expect(b.overlay.get('s', ids[1]!)).toBeDefined();
    expect(b.overlay.newest('s')?.status.promptId).toBe(ids[64]);
  });

  it('writes back combined answers in place, and a rewind clears the overlay', async () => {
    const b = bridge();
    const a = b.admit('s', text('a')).promptId;
    dispatched[0]!.settle({});
    await flush();
    const c = b.admit('s', text('c')).promptId;
    dispatched[1]!.settle({});
    await flush();
    b.overlay.writeBack('s', { sessionId: 's', state: 'completed', promptId: a, endedAt: 1, resultText: 'x' }, false);
    expect(b.overlay.get('s', a)).toEqual({ status: expect.objectContaining({ resultText: 'x' }), combined: true });
    expect(b.overlay.newest('s')?.status.promptId).toBe(c);
    expect(b.overlay.generation('s')).toBe(0);
    b.beginRewind('s');
    b.endRewind('s', false); // a failed rewind keeps the overlay
    expect(b.overlay.get('s', a)).toBeDefined();
    expect(b.overlay.generation('s')).toBe(0);
    b.beginRewind('s');
    b.endRewind('s', true);
    expect(b.overlay.generation('s')).toBe(1);
    expect(b.overlay.get('s', a)).toBeUndefined();
  });

  it('answers client lookups from the session runner', () => {
    const b = bridge();
    expect(b.hasSession('s')).toBe(true);
    expect(b.hasSession('t')).toBe(false);
    expect(b.isClientRegistered('s', 'client_a')).toBe(true);
    expect(b.isClientRegistered('s', 'client_b')).toBe(false);
    expect(b.isClientRegistered('t', 'client_a')).toBe(false);
  });
});
