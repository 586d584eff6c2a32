// @ts-check
// Property: no daemon answered a 5xx other than the documented 503s, and no daemon exited unless the schedule
// killed it. A 502/504 nginx makes up itself (an upstream it could not reach: a killed or stopped node) is not a
// daemon's answer; the figures count those.
import { opsOf } from './turn-observations.js';
import { servedBy } from './ownership.js';

/** @typedef {import('./types.js').Run} Run */
/** @typedef {import('./types.js').Violation} Violation */

export const name = 'no-5xx-no-crash';
export const description = 'no 5xx but the documented 503s; no daemon exits on its own';

/** The 503 codes of the error catalogue (src/errors/api-errors.ts; a spec keeps the two in step). */
export const DOCUMENTED_503_CODES = new Set([
  'prompt_queue_full',
  'cluster_unavailable',
  'session_fenced',
  'ledger_unavailable',
  'not_ready',
  'too_many_waiters',
  'too_many_sessions',
  'too_many_streams',
  'shutting_down',
]);

/** True when a daemon (not the proxy in front) gave this answer: it names itself, or the body is our error shape. */
export function answeredByDaemon(/** @type {import('./types.js').OpRecord} */ op) {
  return servedBy(op) !== undefined || (typeof op.body?.code === 'string' && typeof op.body?.error === 'string');
}

/** True for a 5xx answer a daemon gave that the SPEC does not document. */
export function isUndocumented5xx(/** @type {import('./types.js').OpRecord} */ op) {
  if (typeof op.status !== 'number' || op.status < 500 || !answeredByDaemon(op)) return false;
  return !(op.status === 503 && DOCUMENTED_503_CODES.has(op.body?.code));
}

/**
 * @param {Run} run
 * @returns {Violation[]}
 */
export function check(run) {
  /** @type {Violation[]} */
  const violations = [];
  for (const op of opsOf(run.history)) {
    if (!isUndocumented5xx(op)) continue;
    const by = servedBy(op);
    violations.push({
      kind: `${op.status} ${op.body?.code ?? 'no-code'}`,
      message: `${by ?? 'a daemon'} answered ${op.status} ${op.body?.code ?? ''} to ${op.method ?? ''} ${op.path ?? op.op}`.replace(
        / +/g,
        ' ',
      ),
      slice: [op],
    });
  }
  for (const record of run.history) {
    if (record.type !== 'crash') continue;
    violations.push({
      kind: 'crash',
      message: `${record.target} exited on its own (code ${record.code}, signal ${record.signal})`,
      slice: [record],
    });
  }
  return violations;
}
