import { ManualClock } from '../../test/support/manual-clock.js';
import type { TurnOutcome } from '../turns/rules/turn-outcome.js';
import { TERMINAL_OVERLAY_SIZE } from '../turns/rules/limits.js';
import { SessionEventBus } from '../events/session-event-bus.js';
import type { SessionEventType } from '../wire/session-event.js';
import { effectiveDeadlineMs } from './bridge-options.js';
import { PromptBridge } from './prompt-bridge.js';
import { SessionRunner, type SessionPrompt } from './session-runner.js';

interface Dispatch {
  input: SessionPrompt;
  signal: AbortSignal;
  settle(outcome: Partial<TurnOutcome>): void;
}

/** Sessions whose prompts settle when the test says so (the port behind the bridge; the testing kit fakes those in front). */
class FakeRunner extends SessionRunner {
  readonly live = new Set<string>(['s']);
  readonly dispatched: Dispatch[] = [];
  constructor(private readonly clock: ManualClock) {
    super();
  }
  hasSession(sessionId: string): boolean {
    return this.live.has(sessionId);
  }
  isClientRegistered(sessionId: string, clientId: string): boolean {
    return this.live.has(sessionId) && clientId === 'client_a';
  }
  run(_sessionId: string, input: SessionPrompt, signal: AbortSignal): Promise<TurnOutcome> {
    return new Promise<TurnOutcome>((resolve) => {
      this.dispatched.push({
        input,
        signal,
        settle: (outcome) =>
          resolve({ promptId: input.promptId, state: 'completed', stopReason: 'end_turn', endedAt: this.clock.now(), ...outcome }),
      });
    });
  }
}

const text = (t: string) => [{ type: 'text', text: t }];
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('PromptBridge', () => {
  let clock: ManualClock;
  let events: SessionEventBus;
  let runner: FakeRunner;
  let dispatched: Dispatch[];
  let published: Array<{ type: SessionEventType; promptId?: string }>;

  function bridge(options: { maxPendingPrompts?: number; promptDeadlineMs?: number; overlaySize?: number } = {}) {
    return new PromptBridge(runner, events, clock, { maxPendingPrompts: 5, overlaySize: TERMINAL_OVERLAY_SIZE, ...options });
  }

  beforeEach(() => {
    clock = new ManualClock();
    events = new SessionEventBus(clock);
    runner = new FakeRunner(clock);
    dispatched = runner.dispatched;
    published = [];
    events.subscribe('s').subscribe((e) => published.push({ type: e.type, promptId: e.promptId }));
  });
  afterEach(() => jest.useRealTimers());

  it('counts agent updates into activity: polls see it at most once a second; only activity watchers are woken, by one timer', async () => {
    jest.useFakeTimers();
    const b = bridge();
    const { promptId } = b.admit('s', text('work'));
    const run = dispatched[0]!.input;
    const plain = jest.fn();
    const active = jest.fn();
    b.watch('s', plain);
    b.watchActivity('s', active);
    const started = b.getLive('s', promptId)!;
    clock.time += 200;
    run.onUpdate!({ kind: 'message', text: 'a' });
    run.onUpdate!({ kind: 'tool_call', toolCallId: 't', title: 'ls' });
    // Within the second: the same status object (same bytes, same ETag), nobody woken yet.
    expect(b.getLive('s', promptId)).toBe(started);
    expect(active).not.toHaveBeenCalled();
    clock.time += 800;
    jest.advanceTimersByTime(800);
    expect(active).toHaveBeenCalledTimes(1);
    expect(b.getLive('s', promptId)).toMatchObject({ activity: { events: 2, toolCalls: 1, lastEventAt: 1_200, lastTool: 'ls' } });
    expect(b.listLive('s')).toEqual([b.getLive('s', promptId)]);
    // A burst of updates wakes nobody that did not ask, and an activity watcher once a second at most.
    for (let i = 0; i < 50; i += 1) run.onUpdate!({ kind: 'thought', text: 'x' });
    expect(plain).not.toHaveBeenCalled();
    expect(active).toHaveBeenCalledTimes(1);
    clock.time += 1_000;
    jest.advanceTimersByTime(1_000);
    expect(active).toHaveBeenCalledTimes(2);
    // An update inside the second arms one timer; the terminal clears it, and later updates count for nothing.
    run.onUpdate!({ kind: 'message', text: 'more' });
    expect(jest.getTimerCount()).toBe(1);
    dispatched[0]!.settle({});
    for (let i = 0; i < 5 && b.getLive('s', promptId); i += 1) await Promise.resolve();
    expect(b.getLive('s', promptId)).toBeUndefined();
    expect(jest.getTimerCount()).toBe(0);
    run.onUpdate!({ kind: 'message', text: 'late' });
    expect(jest.getTimerCount()).toBe(0);
    expect(active).toHaveBeenCalledTimes(2);
  });

  it('a poll that shows new activity wakes the activity watchers, later and not inside the poll', async () => {
    jest.useFakeTimers();
    const b = bridge();
    const { promptId } = b.admit('s', text('work'));
    const run = dispatched[0]!.input;
    const active = jest.fn();
    b.watchActivity('s', active);
    const started = b.getLive('s', promptId)!;
    clock.time += 200;
    run.onUpdate!({ kind: 'message', text: 'a' });
    // The second is up; a plain poll reads first, before the watchers' timer fires.
    clock.time += 800;
    const shown = b.getLive('s', promptId)!;
    expect(shown).not.toBe(started);
    expect(shown).toMatchObject({ activity: { events: 1 } });
    expect(active).not.toHaveBeenCalled();
    jest.runAllTicks();
    await Promise.resolve();
    expect(active).toHaveBeenCalledTimes(1);
    // The timer then finds nothing new to show: no second wake-up for the same activity.
    jest.advanceTimersByTime(1_000);
    expect(active).toHaveBeenCalledTimes(1);
    expect(b.getLive('s', promptId)).toBe(shown);
  });

  it('a watcher added after an update no one watched wakes when that activity is shown', () => {
    jest.useFakeTimers();
    const b = bridge();
    const { promptId } = b.admit('s', text('work'));
    const run = dispatched[0]!.input;
    b.getLive('s', promptId);
    clock.time += 200;
    run.onUpdate!({ kind: 'message', text: 'a' });
    expect(jest.getTimerCount()).toBe(0);
    clock.time += 300;
    const active = jest.fn();
    b.watchActivity('s', active);
    expect(active).not.toHaveBeenCalled();
    clock.time += 499;
    jest.advanceTimersByTime(499);
    expect(active).not.toHaveBeenCalled();
    clock.time += 1;
    jest.advanceTimersByTime(1);
    expect(active).toHaveBeenCalledTimes(1);
    expect(b.getLive('s', promptId)).toMatchObject({ activity: { events: 1 } });
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
    expect(b.getOverlay('s', first)?.status).toMatchObject({ state: 'completed', startedAt: 1_000, endedAt: 3_000 });
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
    expect(b.getOverlay('s', queued)?.status).toEqual({
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
    expect(b.getOverlay('s', running)?.status.state).toBe('cancelled');
  });

  it('latches the first terminal: a deadline error is not overwritten by a later settle, and one event is sent', async () => {
    jest.useFakeTimers();
    const b = bridge({ promptDeadlineMs: 100 });
    const promptId = b.admit('s', text('slow')).promptId;
    jest.advanceTimersByTime(100);
    expect(b.getOverlay('s', promptId)?.status).toMatchObject({ state: 'error', error: { code: 'prompt_deadline_exceeded' } });
    expect(b.getLive('s', promptId)).toBeUndefined();
    expect(dispatched[0]!.signal.aborted).toBe(true);
    dispatched[0]!.settle({ state: 'completed' });
    await Promise.resolve();
    await Promise.resolve();
    expect(b.getOverlay('s', promptId)?.status.state).toBe('error');
    const terminals = published.filter((e) => e.promptId === promptId && (e.type === 'turn_complete' || e.type === 'turn_error'));
    expect(terminals).toEqual([{ type: 'turn_error', promptId }]);
  });

  it('releases the FIFO when a running prompt passes its deadline', () => {
    jest.useFakeTimers();
    const b = bridge({ promptDeadlineMs: 1_000 });
    const slow = b.admit('s', text('slow'), undefined, 100).promptId;
    const next = b.admit('s', text('next')).promptId;
    expect(b.getLive('s', next)?.state).toBe('queued');
    jest.advanceTimersByTime(100);
    // The agent has not settled `slow`, yet the next prompt is dispatched.
    expect(b.getOverlay('s', slow)?.status.state).toBe('error');
    expect(b.getLive('s', next)?.state).toBe('running');
    expect(dispatched.map((d) => d.input.promptId)).toEqual([slow, next]);
  });

  it('narrows the server deadline with deadlineMs, never extends or creates one', () => {
    expect(effectiveDeadlineMs(1_000, 200)).toBe(200);
    expect(effectiveDeadlineMs(1_000, 5_000)).toBe(1_000);
    expect(effectiveDeadlineMs(undefined, 200)).toBeUndefined();
    expect(effectiveDeadlineMs(1_000, undefined)).toBe(1_000);
    jest.useFakeTimers();
    const b = bridge({ promptDeadlineMs: 1_000 });
    const narrowed = b.admit('s', text('a'), undefined, 200).promptId;
    jest.advanceTimersByTime(199);
    expect(b.getLive('s', narrowed)).toBeDefined();
    jest.advanceTimersByTime(1);
    expect(b.getOverlay('s', narrowed)?.status.state).toBe('error');
  });

  it('ignores deadlineMs without a server deadline', () => {
    jest.useFakeTimers();
    const b = bridge();
    const promptId = b.admit('s', text('a'), undefined, 10).promptId;
    jest.advanceTimersByTime(10_000);
    expect(b.getLive('s', promptId)?.state).toBe('running');
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
    expect(b.getOverlay('s', ids[0]!)).toBeUndefined();
    expect(b.getOverlay('s', ids[1]!)).toBeDefined();
    expect(b.getNewestOverlay('s')?.status.promptId).toBe(ids[64]);
  });

  it('writes back combined answers in place, and a rewind clears the overlay', async () => {
    const b = bridge();
    const a = b.admit('s', text('a')).promptId;
    dispatched[0]!.settle({});
    await flush();
    const c = b.admit('s', text('c')).promptId;
    dispatched[1]!.settle({});
    await flush();
    b.writeBack('s', { sessionId: 's', state: 'completed', promptId: a, endedAt: 1, resultText: 'x' }, false);
    expect(b.getOverlay('s', a)).toEqual({ status: expect.objectContaining({ resultText: 'x' }), combined: true });
    expect(b.getNewestOverlay('s')?.status.promptId).toBe(c);
    expect(b.rewindGeneration('s')).toBe(0);
    b.beginRewind('s');
    b.endRewind('s', false); // a failed rewind keeps the overlay
    expect(b.getOverlay('s', a)).toBeDefined();
    expect(b.rewindGeneration('s')).toBe(0);
    b.beginRewind('s');
    b.endRewind('s', true);
    expect(b.rewindGeneration('s')).toBe(1);
    expect(b.getOverlay('s', a)).toBeUndefined();
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
