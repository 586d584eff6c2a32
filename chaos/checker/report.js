// @ts-check
// The text report of one checked run: the figures, each property's count, and the first violations with their slices.

/** How many violations of each property are printed with their slice. */
const SHOWN = 3;
/** A slice line longer than this is cut (the full record stays in the JSON result). */
const LINE = 400;

const cut = (/** @type {string} */ text) => (text.length > LINE ? `${text.slice(0, LINE)}…` : text);
const ms = (/** @type {number | null} */ value) => (value === null ? '-' : `${Math.round(value)}`);
const counts = (/** @type {Record<string, number>} */ byKind) =>
  Object.entries(byKind)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ') || 'none';

/**
 * @param {import('./index.js').CheckResult} result
 * @returns {string}
 */
export function formatReport(result) {
  const { figures } = result;
  const lines = [
    `chaos run ${result.seed ?? '?'}-${result.index ?? '?'}${result.dir ? ` (${result.dir})` : ''}: ${result.ok ? 'OK' : 'VIOLATIONS'}`,
    `  faults:     ${counts(figures.faultsByKind)}`,
    `  operations: ${counts(figures.opsByKind)}`,
    `  answers:    ${counts(figures.statusesByClass)}${figures.proxy5xx > 0 ? ` (${figures.proxy5xx} 5xx from the proxy)` : ''}`,
    `  failover ms    p50 ${ms(figures.failoverMs.p50)}  p99 ${ms(figures.failoverMs.p99)}  (n=${figures.failoverMs.count})`,
    `  delivery lag ms p50 ${ms(figures.deliveryLagMs.p50)}  p99 ${ms(figures.deliveryLagMs.p99)}  (n=${figures.deliveryLagMs.count}; ${figures.deliveries} deliveries, ${figures.outboxPending} left in outboxes)`,
    ...figures.notes.map((note) => `  note: ${note}`),
    ...(figures.skippedLines ? [`  note: ${figures.skippedLines} history lines did not parse`] : []),
    '  property                        violations',
  ];
  for (const property of result.properties) lines.push(`  ${property.name.padEnd(32)}${property.violations.length}`);
  for (const property of result.properties) {
    for (const violation of property.violations.slice(0, SHOWN)) {
      lines.push(`  [${property.name}] ${violation.message}`);
      for (const record of violation.slice) lines.push(`      ${cut(JSON.stringify(record))}`);
    }
    if (property.violations.length > SHOWN) lines.push(`  [${property.name}] … and ${property.violations.length - SHOWN} more`);
  }
  return lines.join('\n');
}
