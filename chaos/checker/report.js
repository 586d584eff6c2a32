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
  const f = figures.failover;
  const d = figures.duplicates;
  const lines = [
    `chaos run ${result.seed ?? '?'}-${result.index ?? '?'}${result.dir ? ` (${result.dir})` : ''}: ${result.ok ? 'OK' : 'VIOLATIONS'}`,
    `  faults:     ${counts(figures.faultsByKind)}`,
    `  operations: ${counts(figures.opsByKind)}`,
    `  answers:    ${counts(figures.statusesByClass)}${figures.proxy5xx > 0 ? ` (${figures.proxy5xx} 5xx from the proxy)` : ''}`,
    `  failover ms    p50 ${ms(f.totalMs.p50)}  p99 ${ms(f.totalMs.p99)}  (n=${f.totalMs.count}; bound ${Math.round(f.boundMs)}; ` +
      `${f.censored} censored, ${f.unanswered} never answered)`,
    `    a node fault alone (no Redis fault inside)  p50 ${ms(f.nodeFaultAloneMs.p50)}  p99 ${ms(f.nodeFaultAloneMs.p99)}  (n=${f.nodeFaultAloneMs.count})`,
    `    split p50/p99  expiry ${ms(f.expiryMs.p50)}/${ms(f.expiryMs.p99)}  claim ${ms(f.claimMs.p50)}/${ms(f.claimMs.p99)}  ` +
      `serving ${ms(f.servingMs.p50)}/${ms(f.servingMs.p99)}`,
    `  delivery lag ms p50 ${ms(figures.deliveryLagMs.p50)}  p99 ${ms(figures.deliveryLagMs.p99)}  (n=${figures.deliveryLagMs.count}; ${figures.deliveries} deliveries, ${figures.outboxPending} left in outboxes)`,
    `  duplicates:  ${d.duplicated} of ${d.ids} webhook-ids delivered more than once (${d.extra} extra, ${d.acrossSenders} by two senders); ` +
      `by sender: ${
        Object.entries(d.bySender)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([sender, n]) => `${sender} ${n.delivered}/${n.duplicates}`)
          .join(', ') || 'none'
      }`,
    ...figures.notes.map((note) => `  note: ${note}`),
    ...(figures.skippedLines ? [`  note: ${figures.skippedLines} history lines did not parse`] : []),
    '  property                        violations',
  ];
  for (const property of result.properties) lines.push(`  ${property.name.padEnd(32)}${property.violations.length}`);
  for (const property of result.properties) {
    for (const violation of property.violations.slice(0, SHOWN)) {
      lines.push(`  [${violation.signature ?? property.name}] ${violation.message}`);
      for (const record of violation.slice) lines.push(`      ${cut(JSON.stringify(record))}`);
    }
    if (property.violations.length > SHOWN) lines.push(`  [${property.name}] … and ${property.violations.length - SHOWN} more`);
  }
  return lines.join('\n');
}
