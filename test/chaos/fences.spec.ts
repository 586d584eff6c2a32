import { check as monotonic } from '../../chaos/checker/fences-monotonic.js';
import { check as silent } from '../../chaos/checker/fenced-silent.js';
import { claim, exact, fence, pid, prompt, runOf } from './synthetic-run.js';

describe('chaos checker: fences never decrease', () => {
  it('passes fences that only grow', () => {
    expect(monotonic(runOf([fence(0, 'file', 3), fence(500, 'file', 3), fence(900, 'file', 7)]))).toEqual([]);
  });

  it('reports a recorded fence lowered by a later record (two racing claims, read-compare-rename)', () => {
    const high = fence(500, 'file', 8);
    const low = fence(800, 'file', 6);
    expect(monotonic(runOf([fence(0, 'file', 3), high, low, fence(900, 'file', 5)]))).toEqual([
      expect.objectContaining({ kind: 'decreased', slice: [high, low] }),
    ]);
  });

  it("does not count a lease's fence (Redis may start over; the data dir may not)", () => {
    expect(monotonic(runOf([fence(0, 'lease', 8, { node: 'n1' }), fence(800, 'lease', 2, { node: 'n2' })]))).toEqual([]);
  });
});

describe('chaos checker: a fenced node answers nothing', () => {
  const n1 = fence(0, 'lease', 4, { node: 'n1' });

  it('passes an owner that answers under its own fence, and the new owner after a higher one', () => {
    const history = [n1, exact(100, pid(1), 'running', { node: 'n1' }), fence(5_000, 'file', 5), fence(5_000, 'lease', 5, { node: 'n2' })];
    history.push(exact(6_000, pid(1), 'completed', { node: 'n2' }));
    expect(silent(runOf(history))).toEqual([]);
  });

  it('reports a 202 from a node whose lease key was deleted, after another node recorded a higher fence', () => {
    const higher = fence(5_000, 'file', 5);
    const stale = prompt(6_000, pid(2), { node: 'n1' });
    const violations = silent(runOf([n1, higher, stale, exact(6_100, pid(2), 'queued', { node: 'n1' })]));
    expect(violations.map((v) => v.kind)).toEqual(['admitted-after-fence', 'answered-after-fence']);
    expect(violations[0]!.slice).toEqual([n1, higher, stale]);
  });

  it('does not blame a request sent before the higher fence was on record, nor a node that claimed again above it', () => {
    const early = exact(4_900, pid(1), 'running', { node: 'n1' });
    early.end = early.start + 300;
    expect(silent(runOf([n1, fence(5_000, 'file', 5), early]))).toEqual([]);
    const reclaimed = [n1, fence(5_000, 'lease', 5, { node: 'n2' }), claim(8_000, 'n1'), fence(8_100, 'lease', 6, { node: 'n1' })];
    expect(silent(runOf([...reclaimed, exact(8_050, pid(1), 'completed', { node: 'n1' })]))).toEqual([]);
  });

  it("does not take a node's own claim on the data dir for another's (its fence file sampled before its lease); another node's file still counts", () => {
    // Redis lost n1's lease and n1 claimed again: the sampler read the fence file (naming n1), then its lease 20 ms
    // later; a read answered between.
    const between = exact(8_005, pid(1), 'completed', { node: 'n1' });
    const own = [n1, fence(8_000, 'file', 6, { node: 'n1' })];
    expect(silent(runOf([...own, between, fence(8_020, 'lease', 6, { node: 'n1' })]))).toEqual([]);

    const theirs = fence(8_000, 'file', 6, { node: 'n2' });
    const stale = exact(8_005, pid(1), 'completed', { node: 'n1' });
    expect(silent(runOf([n1, theirs, stale]))).toEqual([
      expect.objectContaining({ kind: 'answered-after-fence', slice: [n1, theirs, stale] }),
    ]);
  });
});
