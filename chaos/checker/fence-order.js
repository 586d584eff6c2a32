// @ts-check
// The fencing-token rule the daemon's readers apply to a session's transcript and ledger (src/transcript/fence-order.ts:
// `FenceOrder`, `fenceOf`), for the checker, which runs without a build; test/chaos/fence-order.spec.ts holds the two
// to the same answers. Each property must see the files as the next owner reads them, not as they lie on disk.

/**
 * The `fence` a parsed line carries: a positive safe integer, else none.
 * @param {any} record
 * @returns {number | undefined}
 */
export function fenceOf(record) {
  const fence = record?.fence;
  return typeof fence === 'number' && Number.isSafeInteger(fence) && fence > 0 ? fence : undefined;
}

/**
 * The lines a reader believes, in file order: a line whose fence is lower than one before it is a stale owner's,
 * written after a newer claim's marker, and is left out; a line without a fence is kept and outranks nothing.
 * @template {{ record: any }} T
 * @param {T[]} lines one file's lines, in file order
 * @returns {T[]}
 */
export function believedLines(lines) {
  let highest = 0;
  return lines.filter(({ record }) => {
    const fence = fenceOf(record);
    if (fence === undefined) return true;
    if (fence < highest) return false;
    highest = fence;
    return true;
  });
}
