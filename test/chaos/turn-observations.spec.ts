import { acknowledgedPrompts, settleDeadline, turnObservations, turnRouteOf } from '../../chaos/checker/turn-observations.js';
import { exact, op, pid, prompt, runOf, SID, T0 } from './synthetic-run.js';

describe('chaos checker: what the clients saw', () => {
  it('tells the turn routes apart by path, queries included', () => {
    expect(turnRouteOf(`/session/${SID}/turns/${pid(1)}?waitMs=5000`)).toEqual({ sessionId: SID, route: 'exact', promptId: pid(1) });
    expect(turnRouteOf(`/session/${SID}/turns/current?waitMs=1`)).toEqual({ sessionId: SID, route: 'current' });
    expect(turnRouteOf(`/session/${SID}/turns?state=completed&limit=100`)).toEqual({ sessionId: SID, route: 'list' });
    expect(turnRouteOf(`/session/${SID}/prompt`)).toBeUndefined();
    expect(turnRouteOf(`/session/${SID}/turns/${pid(1)}/extra`)).toBeUndefined();
  });

  it('takes the first 202 of each promptId as its acknowledgement, and nothing else', () => {
    const first = prompt(0, pid(1), { key: 'k' });
    const refused = { ...prompt(5, pid(2)), status: 503, body: { error: 'full', code: 'prompt_queue_full' } };
    const acked = acknowledgedPrompts([first, prompt(10, pid(1), { key: 'k' }), refused]);
    expect([...acked.keys()]).toEqual([pid(1)]);
    expect(acked.get(pid(1))!.op).toBe(first);
  });

  it('skips 304s, idle and answers of other routes', () => {
    const unchanged = { ...exact(10, pid(1), 'running'), status: 304, body: null };
    const idle = op(20, { op: 'current', path: `/session/${SID}/turns/current`, body: { sessionId: SID, state: 'idle' } });
    expect(turnObservations([unchanged, idle, prompt(0, pid(1))])).toEqual([]);
  });

  it('waits for the first final read when no healedAt was recorded', () => {
    const history = [exact(10, pid(1), 'running'), exact(500, pid(1), 'completed', { final: true })];
    expect(settleDeadline(runOf(history, { meta: { healedAt: 0 } }))).toBe(T0 + 500);
    expect(settleDeadline(runOf([], { meta: { healedAt: 0 } }))).toBe(Infinity);
    expect(settleDeadline(runOf([]))).toBe(T0 + 110_000);
  });
});
