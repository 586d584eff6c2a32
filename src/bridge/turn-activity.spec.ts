import { TurnActivityCounter } from './turn-activity.js';

describe('TurnActivityCounter', () => {
  it('shows nothing before the first update, then counts at most once per interval', () => {
    const counter = new TurnActivityCounter(1_000, 1_000);
    expect(counter.refresh(5_000)).toBe(false);
    expect(counter.pendingIn(1_200)).toBeUndefined();
    counter.count({ kind: 'message' }, 1_200);
    // Less than a second since the turn started: not yet.
    expect(counter.pendingIn(1_200)).toBe(800);
    expect(counter.refresh(1_200)).toBe(false);
    expect(counter.shown).toBeUndefined();
    counter.count({ kind: 'tool_call', title: 'Read README.md' }, 1_900);
    expect(counter.refresh(2_000)).toBe(true);
    expect(counter.shown).toEqual({ events: 2, toolCalls: 1, lastEventAt: 1_900, lastTool: 'Read README.md' });
    // A burst inside the next second changes nothing a poll sees.
    for (let t = 2_001; t < 2_999; t += 1) counter.count({ kind: 'message' }, t);
    expect(counter.refresh(2_999)).toBe(false);
    expect(counter.shown?.events).toBe(2);
    expect(counter.refresh(3_000)).toBe(true);
    expect(counter.shown).toEqual({ events: 1_000, toolCalls: 1, lastEventAt: 2_998, lastTool: 'Read README.md' });
  });

  it('stops changing when the agent stops', () => {
    const counter = new TurnActivityCounter(0, 1_000);
    counter.count({ kind: 'thought' }, 10);
    expect(counter.refresh(1_000)).toBe(true);
    expect(counter.refresh(60_000)).toBe(false);
    expect(counter.pendingIn(60_000)).toBeUndefined();
  });

  it('cuts a long tool title to 256 code units without a lone surrogate', () => {
    const counter = new TurnActivityCounter(0, 0);
    counter.count({ kind: 'tool_call', title: `${'x'.repeat(255)}😀` }, 1);
    counter.refresh(1);
    expect(counter.shown?.lastTool).toBe('x'.repeat(255));
  });
});
