// @ts-check

/**
 * Nearest-rank percentiles of a sample: `{ count, p50, p99, max }`, the values null for an empty sample.
 * @param {number[]} values
 */
export function summarize(values) {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  const at = (/** @type {number} */ p) => (sorted.length === 0 ? null : sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]);
  return { count: sorted.length, p50: at(50), p99: at(99), max: sorted.length === 0 ? null : sorted[sorted.length - 1] };
}
