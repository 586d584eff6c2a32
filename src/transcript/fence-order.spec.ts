import fc from 'fast-check';
import { FenceOrder, fenceOf } from './fence-order.js';

const read = (fences: Array<number | undefined>) => {
  const order = new FenceOrder();
  return fences.map((fence) => order.admits(fence));
};

describe('FenceOrder', () => {
  it("skips a stale owner's line after a newer claim's marker, wherever it lands", () => {
    // owner 3 writes, owner 5 claims (marker 5), owner 3 appends once more, owner 5 goes on
    expect(read([3, 3, 5, 3, 5, 3])).toEqual([true, true, true, false, true, false]);
  });

  it('reads lines without a fence, which outrank nothing (a single daemon, earlier versions)', () => {
    expect(read([undefined, 4, undefined, 2, undefined])).toEqual([true, true, true, false, true]);
  });

  it('keeps exactly the lines no earlier line outranks (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.integer({ min: 1, max: 9 }), { nil: undefined })), (fences) => {
        const kept = read(fences);
        fences.forEach((fence, i) => {
          const outranked = fence !== undefined && fences.slice(0, i).some((earlier) => earlier !== undefined && earlier > fence);
          expect(kept[i]).toBe(!outranked);
        });
        // What is kept never goes down.
        const keptFences = fences.filter((fence, i) => kept[i] && fence !== undefined) as number[];
        expect([...keptFences].sort((a, b) => a - b)).toEqual(keptFences);
      }),
    );
  });

  it('reads a fence only as a positive safe integer', () => {
    expect([
      fenceOf({ fence: 7 }),
      fenceOf({ fence: '7' }),
      fenceOf({ fence: 0 }),
      fenceOf({ fence: 1.5 }),
      fenceOf(null),
      fenceOf({}),
    ]).toEqual([7, undefined, undefined, undefined, undefined, undefined]);
  });
});
