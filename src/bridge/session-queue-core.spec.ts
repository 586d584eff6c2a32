import { deferred } from '../../test/support/deferred.js';
import type { QueuedPrompt } from './prompt-queue.js';
import { SessionQueueCore } from './session-queue-core.js';
import type { TerminalFields } from './turn-status-projection.js';
import type { TurnTransition } from './turn-transition.js';

const S = 's';

describe('SessionQueueCore', () => {
  let time: number;
  let seen: TurnTransition[];
  let errors: string[];
  let core: SessionQueueCore;

  const entry = (promptId: string): QueuedPrompt => ({ promptId, promptText: `text ${promptId}`, queuedAt: time, published: false });
  const done = (resultText: string): TerminalFields => ({ state: 'completed', stopReason: 'end_turn', resultText, endedAt: time });
  const kinds = () => seen.map((t) => `${t.kind} ${t.promptId}`);

  beforeEach(() => {
    time = 1_000;
    seen = [];
    errors = [];
    core = new SessionQueueCore({
      now: () => time,
      logger: { error: (message) => errors.push(message) },
      observers: [(t) => seen.push(t)],
    });
  });

  it('does not dispatch a held head, nor what queues behind it; a settled held head leaves the FIFO', () => {
    const [a, b] = ['a', 'b'].map(entry);
    a!.held = true;
    core.admit(S, a!);
    core.admit(S, b!);
    expect(core.dispatch(S)).toBeUndefined();
    expect(core.getLive(S, 'a')).toMatchObject({ state: 'queued' });
    a!.held = false;
    expect(core.dispatch(S)).toBe(a);
    b!.held = true;
    core.release(S, a!);
    expect(core.dispatch(S)).toBeUndefined();
    core.settle(S, b!, { state: 'cancelled', stopReason: 'cancelled', endedAt: time });
    expect(core.existing(S)!.pendingCount).toBe(0);
  });

  it('withdraws a held prompt through the latch: out of the FIFO, no terminal in the overlay, `withdrawn` and never `settled`', () => {
    const [a, b] = ['a', 'b'].map(entry);
    a!.held = true;
    core.admit(S, a!);
    core.admit(S, b!);
    let woken = 0;
    core.watch(S, () => (woken += 1));
    expect(core.withdraw(S, a!)).toBe(true);
    expect(woken).toBe(1);
    expect(core.getLive(S, 'a')).toBeUndefined();
    expect(core.overlay.get(S, 'a')).toBeUndefined();
    expect(core.dispatch(S)).toBe(b);
    expect(core.withdraw(S, a!)).toBe(false);
    // Ended once: a close that comes later neither settles it nor announces it again.
    core.close(S, { state: 'error', error: { message: 'Session closed', code: 'session_closed' }, endedAt: time });
    expect(kinds()).toEqual(['admitted a', 'admitted b', 'withdrawn a', 'started b', 'settled b']);
    expect(seen.find((t) => t.kind === 'withdrawn')!.status).toMatchObject({ promptId: 'a', state: 'queued' });
  });

  it('runs one prompt at a time, in FIFO order, and marks only the ones that waited', () => {
    const [a, b, c] = ['a', 'b', 'c'].map(entry);
    for (const e of [a!, b!, c!]) core.admit(S, e);
    expect(core.dispatch(S)).toBe(a);
    expect(core.dispatch(S)).toBeUndefined(); // a runs: nothing else starts
    core.settle(S, a!, done('A'));
    expect(core.dispatch(S)).toBeUndefined(); // a still holds the slot until it is released
    expect(core.release(S, a!)).toBe(true);
    expect(core.dispatch(S)).toBe(b);
    expect(kinds()).toEqual(['admitted a', 'admitted b', 'admitted c', 'started a', 'settled a', 'started b']);
    expect(seen.filter((t) => t.kind === 'admitted').map((t) => t.waited)).toEqual([false, true, true]);
    expect(core.getLive(S)).toMatchObject({ promptId: 'b', state: 'running', startedAt: 1_000 });
    expect(core.promptCounts()).toEqual({ queued: 1, running: 1 });
  });

  it('latches the first terminal: a later one is dropped and emits nothing', () => {
    const a = entry('a');
    core.admit(S, a);
    core.dispatch(S);
    expect(core.settle(S, a, { state: 'error', error: { message: 'late', code: 'prompt_deadline_exceeded' }, endedAt: time })).toBe(true);
    expect(core.settle(S, a, done('too late'))).toBe(false);
    expect(seen.filter((t) => t.kind === 'settled')).toHaveLength(1);
    expect(core.overlay.get(S, 'a')?.status).toMatchObject({ state: 'error', error: { code: 'prompt_deadline_exceeded' } });
    expect(core.getLive(S, 'a')).toBeUndefined();
    core.settleLate(S, a, done('too late'));
    expect(seen.at(-1)).toMatchObject({ kind: 'settled_late', status: { state: 'completed', resultText: 'too late' } });
    expect(core.overlay.get(S, 'a')?.status.state).toBe('error'); // a late settle changes no overlay
  });

  it('settles a prompt whose id the overlay holds a transcript read-back for: published, emitted, released', () => {
    core.overlay.writeBack(S, { sessionId: S, promptId: 'a', state: 'completed', resultText: 'read back', endedAt: 1 }, true);
    const a = entry('a');
    core.admit(S, a);
    core.dispatch(S);
    expect(core.settle(S, a, done('ours'))).toBe(true);
    expect(seen.at(-1)).toMatchObject({ kind: 'settled', promptId: 'a', status: { resultText: 'ours' } });
    expect(core.overlay.get(S, 'a')).toEqual({ status: expect.objectContaining({ resultText: 'ours' }), combined: false });
    expect(core.getLive(S, 'a')).toBeUndefined();
  });

  it('ends a prompt whose reused id has a published terminal held: the overlay keeps the first, the prompt still settles', () => {
    const first = entry('a');
    core.admit(S, first);
    core.dispatch(S);
    core.settle(S, first, done('first'));
    core.release(S, first);
    const [again, next] = [entry('a'), entry('b')];
    core.admit(S, again);
    core.admit(S, next);
    core.dispatch(S);
    expect(core.settle(S, next, done('queued one ends'))).toBe(true); // a queued entry leaves the FIFO
    expect(core.settle(S, again, done('second'))).toBe(true);
    expect(core.settle(S, again, done('third'))).toBe(false);
    expect(seen.filter((t) => t.kind === 'settled').map((t) => t.status.state === 'completed' && t.status.resultText)).toEqual([
      'first',
      'queued one ends',
      'second',
    ]);
    expect(core.overlay.get(S, 'a')?.status).toMatchObject({ resultText: 'first' });
    expect(core.release(S, again)).toBe(true);
    expect(core.promptCounts()).toEqual({ queued: 0, running: 0 });
  });

  it('lets the writer that settles first win, whichever started waiting first (controlled promises)', async () => {
    const a = entry('a');
    core.admit(S, a);
    core.dispatch(S);
    const deadline = deferred<void>();
    const outcome = deferred<void>();
    const won: string[] = [];
    const race = [
      deadline.promise.then(
        () => core.settle(S, a, { state: 'error', error: { message: 'x', code: 'd' }, endedAt: time }) && won.push('deadline'),
      ),
      outcome.promise.then(() => core.settle(S, a, done('answer')) && won.push('outcome')),
    ];
    outcome.resolve();
    await Promise.resolve();
    deadline.resolve();
    await Promise.all(race);
    expect(won).toEqual(['outcome']);
    expect(core.overlay.get(S, 'a')?.status).toMatchObject({ state: 'completed', resultText: 'answer' });
  });

  it('takes a settled queued prompt out of the FIFO at once, without startedAt', () => {
    const [a, b] = ['a', 'b'].map(entry);
    core.admit(S, a!);
    core.admit(S, b!);
    core.dispatch(S);
    core.settle(S, b!, { state: 'cancelled', stopReason: 'cancelled', endedAt: time });
    expect(core.listLive(S).map((s) => s.promptId)).toEqual(['a']);
    expect(core.overlay.get(S, 'b')?.status).not.toHaveProperty('startedAt');
    expect(core.overlay.newest(S)?.status.promptId).toBe('b');
  });

  it('wakes the session’s watchers after the observers, once the change is readable', () => {
    const order: string[] = [];
    core.transitions.subscribe((t) => order.push(`late observer ${t.kind}`));
    core.watch(S, () => order.push(`watcher reads ${core.getLive(S)?.state ?? core.overlay.newest(S)?.status.state}`));
    core.watch('other', () => order.push('other session woken'));
    const a = entry('a');
    core.admit(S, a);
    core.dispatch(S);
    core.settle(S, a, done('A'));
    expect(order).toEqual([
      'watcher reads queued',
      'late observer admitted',
      'watcher reads running',
      'late observer started',
      'watcher reads completed',
      'late observer settled',
    ]);
    expect(seen).toHaveLength(3); // the observers given first saw each before the watchers
  });

  it('keeps going when an observer throws: the others, the watchers and the caller are unharmed', () => {
    core.transitions.subscribe(() => {
      throw new TypeError('boom');
    });
    const after: string[] = [];
    core.transitions.subscribe((t) => after.push(t.kind));
    let woken = 0;
    core.watch(S, () => (woken += 1));
    expect(() => core.admit(S, entry('a'))).not.toThrow();
    expect(after).toEqual(['admitted']);
    expect(woken).toBe(1);
    expect(errors).toEqual(['turn observer failed: TypeError']);
  });

  it('closes a session: every pending prompt gets the terminal, then its queue and watchers go', () => {
    const [a, b] = ['a', 'b'].map(entry);
    core.admit(S, a!);
    core.admit(S, b!);
    core.dispatch(S);
    let woken = 0;
    core.watch(S, () => (woken += 1));
    core.close(S, { state: 'error', error: { message: 'Session closed', code: 'session_closed' }, endedAt: time });
    expect(seen.filter((t) => t.kind === 'settled').map((t) => [t.promptId, t.status.state])).toEqual([
      ['a', 'error'],
      ['b', 'error'],
    ]);
    expect(woken).toBe(3); // two terminals and the close
    expect(core.existing(S)).toBeUndefined();
    core.admit(S, entry('c')); // a session of the same id later starts afresh
    expect(woken).toBe(3);
  });

  it('an observer that closes the session as a prompt starts: every observer sees started before settled', () => {
    const closing = new SessionQueueCore({
      now: () => time,
      logger: { error: (message) => errors.push(message) },
      observers: [
        (t) => {
          if (t.kind === 'started')
            closing.close(S, { state: 'error', error: { message: 'Session closed', code: 'session_closed' }, endedAt: time });
        },
        (t) => seen.push(t),
      ],
    });
    const order: string[] = [];
    closing.transitions.subscribe((t) => order.push(`${t.kind} ${t.promptId}`));
    closing.admit(S, entry('a'));
    closing.dispatch(S);
    expect(kinds()).toEqual(['admitted a', 'started a', 'settled a']);
    expect(order).toEqual(kinds());
    expect(errors).toEqual([]);
  });

  it('refuses a rewind while a prompt is pending; a successful one clears the overlay and bumps the generation', () => {
    const a = entry('a');
    core.admit(S, a);
    expect(core.beginRewind(S)).toBe(false);
    core.dispatch(S);
    core.settle(S, a, done('A'));
    core.release(S, a);
    expect(core.beginRewind(S)).toBe(true);
    expect(core.beginRewind(S)).toBe(false); // one rewind at a time
    core.endRewind(S, false);
    expect(core.overlay.get(S, 'a')).toBeDefined(); // a failed rewind keeps it
    expect(core.overlay.generation(S)).toBe(0);
    core.beginRewind(S);
    let woken = 0;
    core.watch(S, () => (woken += 1));
    core.endRewind(S, true);
    expect(core.overlay.get(S, 'a')).toBeUndefined();
    expect(core.overlay.generation(S)).toBe(1);
    expect(woken).toBe(1);
  });

  it('shows activity to polls at most once per interval, and wakes only the activity watchers, by one timer', () => {
    jest.useFakeTimers();
    try {
      const a = entry('a');
      core.admit(S, a);
      core.dispatch(S);
      let plain = 0;
      let activity = 0;
      core.watch(S, () => (plain += 1));
      core.watchActivity(S, () => (activity += 1));
      time += 1_000;
      core.counted(S, a, { kind: 'tool_call', title: 'grep' });
      expect(core.getLive(S)).toMatchObject({ activity: { events: 1, toolCalls: 1, lastTool: 'grep' } });
      core.counted(S, a, { kind: 'message' });
      expect(core.getLive(S)).toMatchObject({ activity: { events: 1 } }); // within the interval: not shown yet
      expect([plain, activity]).toEqual([0, 1]);
      time += 1_000;
      jest.advanceTimersByTime(1_000); // the one timer shows it to the activity watchers
      expect(activity).toBe(2);
      expect(core.getLive(S)).toMatchObject({ activity: { events: 2 } });
      core.counted(S, a, { kind: 'message' });
      core.settle(S, a, done('A')); // the timer armed for the third update wakes no one after the terminal
      time += 1_000;
      jest.advanceTimersByTime(1_000);
      core.counted(S, a, { kind: 'message' }); // after the terminal: not counted
      expect([plain, activity]).toEqual([1, 2]);
    } finally {
      jest.useRealTimers();
    }
  });
});
