// @ts-check
// The report's figures: failover time, delivery lag after the receiver returns, operations and faults by kind.
import { summarize } from './percentiles.js';
import { historyNamesNodes, ownerAt, ownershipTimeline, servedBy, sessionOf } from './ownership.js';
import { isSuccess, opsOf, timeOf, turnObservations } from './turn-observations.js';
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
 * For each `kill9`/`sigstop` of a node that owned sessions then: from the fault to the first 2xx answer, sent after
 * it, for one of those sessions — from any node after a `kill9` (the dead process answers nothing; its restart may
 * take the session back), from another node after a `sigstop`. A node that owned nothing gives no sample.
 * @param {Run} run
 */
export function failoverSamples(run) {
  const owners = ownershipTimeline(run.history);
  const ops = opsOf(run.history).filter((op) => isSuccess(op) && op.op !== 'create');
  const samples = [];
  for (const fault of run.history) {
    if (fault.type !== 'fault' || (fault.fault !== 'kill9' && fault.fault !== 'sigstop')) continue;
    const owned = new Set(
      [...owners].filter(([, timeline]) => ownerAt(timeline, fault.t)?.node === fault.target).map(([sessionId]) => sessionId),
    );
    if (owned.size === 0) continue;
    const elsewhere = fault.fault === 'sigstop';
    const first = ops.find((op) => op.start >= fault.t && owned.has(sessionOf(op) ?? '') && !(elsewhere && servedBy(op) === fault.target));
    if (first) samples.push(first.end - fault.t);
  }
  return samples;
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
    failoverMs: summarize(failoverSamples(run)),
    deliveryLagMs: summarize(deliveryLagSamples(run)),
    notes,
  };
}
