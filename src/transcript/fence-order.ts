/**
 * The fencing-token rule as the readers of a session's append-only files apply it: in file order, a line whose fence
 * is lower than one before it is skipped; a line without one is read and outranks nothing (docs/ledger.md).
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
