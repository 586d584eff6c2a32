// @ts-check
// The report's figures: the canary's failover, delivery lag after the receiver returns, duplicate deliveries,
// operations and faults by kind.
import { summarize } from './percentiles.js';
import { historyNamesNodes } from './ownership.js';
import { opsOf, timeOf, turnObservations } from './turn-observations.js';
import { duplicateDeliveries } from './duplicates.js';
import { failoverFigure } from './failover.js';
import { answeredOk, eventOf } from './webhooks.js';
import { answeredByDaemon } from './server-errors.js';

/** @typedef {import('./types.js').Run} Run */

/** Counts items by a key. */
function countBy(/** @type {any[]} */ items, /** @type {(item: any) => string} */ keyOf) {
  /** @type {Record<string, number>} */
  const counts = {};
  for (const item of items) counts[keyOf(item)] = (counts[keyOf(item)] ?? 0) + 1;
  return counts;
}

/**
 * For each turn whose first 2xx delivery came after the receiver returned (`receiver-up`, or `receiver-ok` after it
 * answered 500) and that had settled before that: from the return to that delivery.
 * @param {Run} run
 */
export function deliveryLagSamples(run) {
  const returns = run.history.filter((r) => r.type === 'fault' && (r.fault === 'receiver-up' || r.fault === 'receiver-ok')).map(timeOf);
  /** @type {Map<string, number>} the first 2xx delivery of each prompt */
  const delivered = new Map();
  for (const record of run.history) {
    if (record.type !== 'delivery' || !answeredOk(record)) continue;
    const promptId = eventOf(/** @type {any} */ (record))?.data?.promptId;
    if (typeof promptId === 'string' && !delivered.has(promptId)) delivered.set(promptId, record.t);
  }
  /** @type {Map<string, number>} the earliest end time a route reported */
  const settledAt = new Map();
  for (const o of turnObservations(run.history)) {
    const endedAt = o.status.endedAt;
    if (typeof endedAt === 'number') settledAt.set(o.promptId, Math.min(settledAt.get(o.promptId) ?? Infinity, endedAt));
  }
  for (const records of run.data.ledgers.values()) {
    for (const { record } of records) {
      if (typeof record.terminal === 'string')
        settledAt.set(record.promptId, Math.min(settledAt.get(record.promptId) ?? Infinity, record.at));
    }
  }
  const samples = [];
  for (const [promptId, at] of delivered) {
    const back = returns.filter((t) => t <= at).at(-1);
    const settled = settledAt.get(promptId);
    if (back !== undefined && settled !== undefined && settled < back) samples.push(at - back);
  }
  return samples;
}

/**
 * @param {Run} run
 */
export function computeFigures(run) {
  const ops = opsOf(run.history);
  const notes = [];
  if (!historyNamesNodes(run.history)) notes.push('no op records X-Turns-Node: fencing and failover cannot be measured');
  const outranked = run.data.outranked;
  if (outranked && outranked.transcript + outranked.ledger > 0)
    notes.push(
      `stale owners' lines a newer fence outranks, left out as the daemon's readers leave them: ${outranked.transcript} in transcripts, ${outranked.ledger} in ledgers`,
    );
  return {
    opsByKind: countBy(ops, (op) => op.op),
    faultsByKind: countBy(
      run.history.filter((r) => r.type === 'fault'),
      (r) => r.fault,
    ),
    statusesByClass: countBy(ops, (op) =>
      op.status === null || op.status === undefined ? `none:${op.error ?? 'unknown'}` : `${String(op.status)[0]}xx`,
    ),
    proxy5xx: ops.filter((op) => typeof op.status === 'number' && op.status >= 500 && !answeredByDaemon(op)).length,
    deliveries: run.history.filter((r) => r.type === 'delivery').length,
    outboxPending: run.data.outbox.length,
    duplicates: duplicateDeliveries(run),
    failover: failoverFigure(run),
    deliveryLagMs: summarize(deliveryLagSamples(run)),
    notes,
  };
}
