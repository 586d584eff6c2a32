import fc from 'fast-check';
import { believedLines, fenceOf as checkerFenceOf } from '../../chaos/checker/fence-order.js';
import { FenceOrder, fenceOf } from '../../src/transcript/fence-order.js';

// The checker runs without a build, so it holds its own copy of the daemon's rule; this keeps the two one rule.
describe("chaos checker: the fence rule is the daemon's", () => {
  const fences = fc.oneof(
    fc.constant(undefined),
    fc.integer({ min: -1, max: 9 }),
    fc.constantFrom(2.5, '4', null, Number.MAX_SAFE_INTEGER + 2),
  );

  it('keeps exactly the lines FenceOrder admits, in order (property)', () => {
    fc.assert(
      fc.property(fc.array(fences, { maxLength: 12 }), (values) => {
        const lines = values.map((fence, line) => ({ line, record: fence === undefined ? {} : { fence } }));
        const order = new FenceOrder();
        const admitted = lines.filter(({ record }) => order.admits(fenceOf(record)));
        expect(believedLines(lines)).toEqual(admitted);
        for (const { record } of lines) expect(checkerFenceOf(record)).toBe(fenceOf(record));
      }),
    );
  });

  it("leaves out a stale owner's lines after a newer claim's marker, and keeps those without a fence", () => {
    const lines = [3, 3, 5, 3, undefined, 5, 4].map((fence, line) => ({ line, record: { fence } }));
    expect(believedLines(lines).map(({ line }) => line)).toEqual([0, 1, 2, 4, 5]);
  });
});
