import { bridgeRig, text, type BridgeRig } from '../../test/support/fake-session-runner.js';

/** Agent updates count into a running prompt's activity, shown to polls and watchers at most once a second. */
describe('PromptBridge activity', () => {
  let clock: BridgeRig['clock'];
  let dispatched: BridgeRig['dispatched'];
  let bridge: BridgeRig['bridge'];

  beforeEach(() => {
    ({ clock, dispatched, bridge } = bridgeRig());
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
});
