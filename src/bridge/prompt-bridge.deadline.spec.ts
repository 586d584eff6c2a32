import { effectiveDeadlineMs } from './bridge.settings.js';
import { bridgeRig, text, type BridgeRig } from '../../test/support/fake-session-runner.js';

describe('PromptBridge deadlines', () => {
  let dispatched: BridgeRig['dispatched'];
  let published: BridgeRig['published'];
  let bridge: BridgeRig['bridge'];

  beforeEach(() => {
    ({ dispatched, published, bridge } = bridgeRig());
  });
  afterEach(() => jest.useRealTimers());

  it('latches the first terminal: a deadline error is not overwritten by a later settle, and one event is sent', async () => {
    jest.useFakeTimers();
    const b = bridge({ promptDeadlineMs: 100 });
    const promptId = b.admit('s', text('slow')).promptId;
    jest.advanceTimersByTime(100);
    expect(b.overlay.get('s', promptId)?.status).toMatchObject({ state: 'error', error: { code: 'prompt_deadline_exceeded' } });
    expect(b.getLive('s', promptId)).toBeUndefined();
    expect(dispatched[0]!.signal.aborted).toBe(true);
    dispatched[0]!.settle({ state: 'completed' });
    await Promise.resolve();
    await Promise.resolve();
    expect(b.overlay.get('s', promptId)?.status.state).toBe('error');
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
    expect(b.overlay.get('s', slow)?.status.state).toBe('error');
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
    expect(b.overlay.get('s', narrowed)?.status.state).toBe('error');
  });

  it('ignores deadlineMs without a server deadline', () => {
    jest.useFakeTimers();
    const b = bridge();
    const promptId = b.admit('s', text('a'), undefined, 10).promptId;
    jest.advanceTimersByTime(10_000);
    expect(b.getLive('s', promptId)?.state).toBe('running');
  });
});
