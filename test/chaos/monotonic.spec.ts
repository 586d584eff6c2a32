import { check, mayFollow } from '../../chaos/checker/monotonic.js';
import { exact, miss, pid, prompt, runOf, SID } from './synthetic-run.js';

describe('chaos checker: state never goes backwards', () => {
  it('allows forward moves and the bridge error superseded by the persisted outcome', () => {
    expect(mayFollow('queued', 'running')).toBe(true);
    expect(mayFollow('running', 'completed')).toBe(true);
    expect(mayFollow('error', 'completed')).toBe(true);
    expect(mayFollow('error', 'cancelled')).toBe(true);
    expect(mayFollow('running', 'queued')).toBe(false);
    expect(mayFollow('completed', 'running')).toBe(false);
    expect(mayFollow('completed', 'error')).toBe(false);
    expect(mayFollow('cancelled', 'completed')).toBe(false);
  });

  it('passes queued → running → error → completed (the deadline path) and a 404 after it (window expiry)', () => {
    const history = [
      prompt(0, pid(1)),
      exact(10, pid(1), 'queued'),
      exact(30, pid(1), 'running'),
      exact(50, pid(1), 'error'),
      exact(70, pid(1), 'completed'),
      miss(90, pid(1)),
    ];
    expect(check(runOf(history))).toEqual([]);
  });

  it('reports completed → running, with both answers as the slice', () => {
    const settled = exact(10, pid(1), 'completed');
    const again = exact(30, pid(1), 'running');
    const violations = check(runOf([prompt(0, pid(1)), settled, again]));
    expect(violations).toHaveLength(1);
    expect(violations[0]!.message).toContain('completed');
    expect(violations[0]!.slice).toEqual([settled, again]);
  });

  it('reports completed → error', () => {
    expect(check(runOf([exact(10, pid(1), 'completed'), exact(30, pid(1), 'error')]))).toHaveLength(1);
  });

  it('does not order two answers whose requests overlapped', () => {
    const slow = exact(10, pid(1), 'running');
    slow.end = slow.start + 100; // sent at +10, answered at +110
    const fast = exact(30, pid(1), 'queued'); // sent at +30 while the first was in flight, answered at +40
    // Neither was sent after the other was answered: concurrent answers may arrive in any order.
    expect(check(runOf([slow, fast]))).toEqual([]);
  });

  it('reads states out of the list and current routes as well', () => {
    const current = { ...exact(10, pid(1), 'completed'), op: 'current', path: `/session/${SID}/turns/current` };
    const listed = { ...exact(30, pid(1), 'running'), op: 'list', path: `/session/${SID}/turns` };
    listed.body = { turns: [exact(30, pid(1), 'running').body] };
    expect(check(runOf([current, listed]))).toHaveLength(1);
  });
});
