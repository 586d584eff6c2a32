/** Counts of the history's records by kind, read back from history.jsonl. */
export function countHistory(lines) {
  const faults = {};
  const ops = {};
  for (const line of lines) {
    if (!line) continue;
    const record = JSON.parse(line);
    if (record.type === 'fault') faults[record.fault] = (faults[record.fault] ?? 0) + 1;
    else if (record.type === 'op') ops[record.op] = (ops[record.op] ?? 0) + 1;
    else ops[record.type] = (ops[record.type] ?? 0) + 1;
  }
  return { faults, ops };
}

const brief = (counts) =>
  Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, n]) => `${name} ${n}`)
    .join(', ') || '-';

const ms = (value) => (typeof value === 'number' && Number.isFinite(value) ? `${(value / 1000).toFixed(1)} s` : '-');

/** The p50/p99 pair of a checker figure, whatever of them it gives. */
function pair(figure) {
  if (!figure) return '- / -';
  return `${ms(figure.p50)} / ${ms(figure.p99)}`;
}

/**
 * The table across runs: seed, faults by kind, ops by kind, each property's
 * violations, failover and delivery lag (p50 / p99), as Markdown (it goes to the README as is).
 */
export function runsTable(runs) {
  const properties = [...new Set(runs.flatMap((run) => run.result?.properties.map((p) => p.name) ?? []))];
  const head = ['run', 'faults', 'ops', ...properties, 'failover p50 / p99', 'delivery lag p50 / p99'];
  const rows = runs.map((run) => {
    const byName = new Map((run.result?.properties ?? []).map((p) => [p.name, p.violations.length]));
    const figures = run.result?.figures ?? {};
    return [
      run.name,
      brief(run.counts.faults),
      brief(run.counts.ops),
      ...properties.map((name) => String(byName.get(name) ?? '-')),
      pair(figures.failover ?? figures.failoverMs),
      pair(figures.deliveryLag ?? figures.deliveryLagMs),
    ];
  });
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}
