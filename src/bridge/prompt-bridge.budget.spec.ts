import { bridgeRig, flush, text, type BridgeRig } from '../../test/support/fake-session-runner.js';
import { TURNS_CHANNELS } from '../telemetry/turns-channels.js';
import { effectiveMaxTokens, passedBudget, TOKEN_BUDGET_EXCEEDED } from './token-budget.js';

const usage = (totalTokens: number) => ({ inputTokens: totalTokens - 10, outputTokens: 10, totalTokens });

describe('PromptBridge usage and token budgets', () => {
  let rig: BridgeRig;
  beforeEach(() => {
    rig = bridgeRig();
  });
  afterEach(() => jest.useRealTimers());

  it('shows a running turn its usage so far at most once a second (same status, same ETag, within the second)', () => {
    jest.useFakeTimers();
    const b = rig.bridge();
    const { promptId } = b.admit('s', text('work'));
    const run = rig.dispatched[0]!.input;
    const started = b.getLive('s', promptId)!;
    rig.clock.time += 100;
    run.onUsage!(usage(20));
    expect(b.getLive('s', promptId)).toBe(started);
    rig.clock.time += 900;
    expect(b.getLive('s', promptId)).toMatchObject({ state: 'running', usage: usage(20) });
    expect(b.getLive('s', promptId)).not.toHaveProperty('activity');
  });

  it("carries the Session's usage on the settled status, and the running sum on a terminal the bridge makes", async () => {
    const b = rig.bridge({ promptDeadlineMs: 1_000 });
    jest.useFakeTimers();
    const settled = b.admit('s', text('a')).promptId;
    rig.dispatched[0]!.input.onUsage!(usage(20));
    rig.dispatched[0]!.settle({ usage: usage(30) });
    jest.useRealTimers();
    await flush();
    expect(b.overlay.get('s', settled)?.status).toMatchObject({ state: 'completed', usage: usage(30) });
    jest.useFakeTimers();
    const expired = b.admit('s', text('b')).promptId;
    rig.dispatched[1]!.input.onUsage!(usage(40));
    jest.advanceTimersByTime(1_000);
    expect(b.overlay.get('s', expired)?.status).toMatchObject({
      state: 'error',
      error: { code: 'prompt_deadline_exceeded' },
      usage: usage(40),
    });
  });

  it('latches error token_budget_exceeded once totalTokens passes maxTokens: aborts with that reason, releases the FIFO, one event', async () => {
    const b = rig.bridge();
    const events: string[] = [];
    rig.events.subscribe('s').subscribe((e) => events.push(e.type));
    const { promptId } = b.admit('s', text('loop'), undefined, undefined, undefined, { maxTokens: 50 });
    const next = b.admit('s', text('next')).promptId;
    const run = rig.dispatched[0]!;
    run.input.onUsage!(usage(50));
    expect(b.getLive('s', promptId)?.state).toBe('running'); // at the budget is not past it
    run.input.onUsage!(usage(51));
    expect(b.overlay.get('s', promptId)?.status).toMatchObject({ state: 'error', error: TOKEN_BUDGET_EXCEEDED, usage: usage(51) });
    expect(run.signal.aborted).toBe(true);
    expect(run.signal.reason).toBe(TOKEN_BUDGET_EXCEEDED);
    expect(b.getLive('s', next)?.state).toBe('running');
    // The agent settles later (completed anyway): the first terminal stays in the overlay; the poll's merge decides (see merge-turn-status).
    run.settle({ state: 'completed', usage: usage(70) });
    await flush();
    expect(b.overlay.get('s', promptId)?.status.state).toBe('error');
    expect(events.filter((type) => type === 'turn_error' || type === 'turn_complete')).toEqual(['turn_error']);
  });

  it('counts each token into the metrics channel once, late reports too', () => {
    const seen: Array<Record<string, number>> = [];
    const stop = TURNS_CHANNELS.tokens.subscribe((growth) => seen.push(growth));
    try {
      const b = rig.bridge();
      b.admit('s', text('a'), undefined, undefined, undefined, { maxTokens: 15 });
      const run = rig.dispatched[0]!.input;
      run.onUsage!({ inputTokens: 10, outputTokens: 10, totalTokens: 20 });
      run.onUsage!({ inputTokens: 10, outputTokens: 10, totalTokens: 20 });
      run.onUsage!({ inputTokens: 25, outputTokens: 10, totalTokens: 35, thoughtTokens: 3 });
      // Past the budget, the turn has ended; what the agent reports after still counts.
      run.onUsage!({ inputTokens: 30, outputTokens: 10, totalTokens: 40, thoughtTokens: 3 });
      expect(seen).toEqual([
        { input: 10, output: 10, thought: 0, cachedRead: 0 },
        { input: 15, output: 0, thought: 3, cachedRead: 0 },
        { input: 5, output: 0, thought: 0, cachedRead: 0 },
      ]);
    } finally {
      stop();
    }
  });

  it('a request narrows the daemon budget, and sets one when the daemon has none', () => {
    expect(effectiveMaxTokens(1_000, 200)).toBe(200);
    expect(effectiveMaxTokens(1_000, 5_000)).toBe(1_000);
    expect(effectiveMaxTokens(undefined, 200)).toBe(200);
    expect(effectiveMaxTokens(1_000, undefined)).toBe(1_000);
    expect(effectiveMaxTokens(undefined, undefined)).toBeUndefined();
    expect(passedBudget(usage(100), 100)).toBe(false);
    expect(passedBudget(usage(101), 100)).toBe(true);
    expect(passedBudget(usage(10_000), undefined)).toBe(false);
    const b = rig.bridge({ promptMaxTokens: 30 });
    const { promptId } = b.admit('s', text('a'), undefined, undefined, undefined, { maxTokens: 1_000 });
    rig.dispatched[0]!.input.onUsage!(usage(31));
    expect(b.overlay.get('s', promptId)?.status).toMatchObject({ state: 'error', error: { code: 'token_budget_exceeded' } });
  });
});
