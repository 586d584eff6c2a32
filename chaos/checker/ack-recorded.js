// @ts-check
// Property: a 202 promises the prompt is recorded where the next owner reads it — every acknowledged prompt has an
// `in_flight` record in its session's ledger (issue 36: a fenced or failed write must not answer 202).
import { acknowledgedPrompts } from './turn-observations.js';

/** @typedef {import('./types.js').Run} Run */
/** @typedef {import('./types.js').Violation} Violation */

export const name = 'every-202-recorded';
export const description = "every 202 has its prompt's in_flight record in the ledger";

/**
 * @param {Run} run
 * @returns {Violation[]}
 */
export function check(run) {
  /** @type {Set<string>} */
  const recorded = new Set();
  for (const records of run.data.ledgers.values()) {
    for (const { record } of records) if (record.state === 'in_flight') recorded.add(record.promptId);
  }
  /** @type {Violation[]} */
  const violations = [];
  for (const { promptId, sessionId, op } of acknowledgedPrompts(run.history).values()) {
    if (recorded.has(promptId)) continue;
    const by = op.headers?.['x-turns-node'];
    violations.push({
      kind: 'no-in-flight-record',
      message: `prompt ${promptId} (session ${sessionId}) was answered 202${by ? ` by ${by}` : ''} at ${op.end}, but no ledger has its in_flight record`,
      slice: [op],
    });
  }
  return violations;
}
