/**
 * The fencing-token rule (Kleppmann) as the readers of a session's
 * append-only files apply it. In cluster mode every line an owner appends
 * carries the fence of its lease, and each claim appends a marker with its
 * fence before the new owner reads. Read in file order, a line whose fence is
 * lower than one before it is a stale owner's, written after a newer claim
 * was recorded: it is skipped, as if the store had refused it. Lines without
 * a fence (a single daemon, earlier versions) are always read and outrank
 * nothing.
 */
export class FenceOrder {
  private highest = 0;

  /** True when a line of this fence is read; it then raises the bar for the lines after it. */
  admits(fence: number | undefined): boolean {
    if (fence === undefined) return true;
    if (fence < this.highest) return false;
    this.highest = fence;
    return true;
  }
}

/** The `fence` a parsed line carries: a positive safe integer, else none. */
export function fenceOf(value: unknown): number | undefined {
  const fence = (value as { fence?: unknown } | null)?.fence;
  return typeof fence === 'number' && Number.isSafeInteger(fence) && fence > 0 ? fence : undefined;
}
