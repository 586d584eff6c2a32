import { summarize } from './checker/percentiles.js';
import { FAULT_NAMES } from './schedule.js';

/** Counts of the history's records by kind, read back from history.jsonl. */
export function countHistory(lines) {
  const faults = {};
  const ops = {};
  for (const line of lines) {
    if (!line) continue;
    const record = JSON.parse(line);
    if (record.type === 'fault') faults[record.fault] = (faults[record.fault] ?? 0) + 1;
    else if (record.type === 'op') {
      const kind = record.canary === undefined ? record.op : 'canary';
      ops[kind] = (ops[kind] ?? 0) + 1;
    } else ops[record.type] = (ops[record.type] ?? 0) + 1;
  }
  return { faults, ops };
}

/** The faults a schedule injects (their heals are not counted again). */
const INJECTED = new Set(Object.values(FAULT_NAMES).map(([fault]) => fault));
/** The table's op kinds, in this order (the per-run report has them all). */
const OPS = ['create', 'prompt', 'remove', 'cancel', 'subscribe', 'exact', 'current', 'list', 'wait', 'load', 'sse', 'delivery', 'canary'];

const brief = (counts, order) =>
  Object.entries(counts)
    .filter(([name]) => !order || order.includes(name))
    .sort(([a], [b]) => (order ? order.indexOf(a) - order.indexOf(b) : a.localeCompare(b)))
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
 * violations, the canary's failover (p50 / p99, censored samples apart) and delivery lag (p50 / p99), as Markdown
 * (it goes to the README as is).
 */
export function runsTable(runs) {
  const properties = [...new Set(runs.flatMap((run) => run.result?.properties.map((p) => p.name) ?? []))];
  const head = [
    'run',
    'faults',
    'ops',
    ...properties,
    'failover p50 / p99 (censored)',
    'of a node fault alone p50 / p99',
    'delivery lag p50 / p99',
  ];
  const injected = (faults) => Object.fromEntries(Object.entries(faults).filter(([kind]) => INJECTED.has(kind)));
  const rows = runs.map((run) => {
    const byName = new Map((run.result?.properties ?? []).map((p) => [p.name, p.violations.length]));
    const figures = run.result?.figures ?? {};
    return [
      run.name,
      brief(injected(run.counts.faults)),
      brief(run.counts.ops, OPS),
      ...properties.map((name) => String(byName.get(name) ?? '-')),
      `${pair(figures.failover?.totalMs)} (${figures.failover?.censored ?? 0})`,
      pair(figures.failover?.nodeFaultAloneMs),
      pair(figures.deliveryLag ?? figures.deliveryLagMs),
    ];
  });
  const sum = (pick) =>
    runs.reduce((total, run) => {
      for (const [name, n] of Object.entries(pick(run))) total[name] = (total[name] ?? 0) + n;
      return total;
    }, {});
  const violations = (name) =>
    runs.reduce((n, run) => n + (run.result?.properties.find((p) => p.name === name)?.violations.length ?? 0), 0);
  const total = [
    `all ${runs.length}`,
    brief(injected(sum((run) => run.counts.faults))),
    brief(
      sum((run) => run.counts.ops),
      OPS,
    ),
    ...properties.map((name) => String(violations(name))),
    `${pair(summarize(runs.flatMap((run) => run.samples?.failover ?? [])))} (${runs.reduce((n, run) => n + (run.result?.figures.failover?.censored ?? 0), 0)})`,
    pair(summarize(runs.flatMap((run) => run.samples?.nodeFaultAlone ?? []))),
    pair(summarize(runs.flatMap((run) => run.samples?.lag ?? []))),
  ];
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line), ...(runs.length > 1 ? [line(total)] : [])].join('\n');
}
