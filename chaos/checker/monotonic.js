// @ts-check
// Property: a turn's reported state never goes backwards, other than the SPEC's documented ways: a bridge error
// superseded by the persisted outcome (§5, the deadline path) and window expiry (a 404, which is not a state).
import { groupBy, turnObservations } from './turn-observations.js';

/** @typedef {import('./types.js').Run} Run */
/** @typedef {import('./types.js').Violation} Violation */

export const name = 'state-monotonic';
export const description = "a turn's reported state never goes backwards (except bridge error → persisted outcome)";

/** @type {Record<string, number>} */
const RANK = { queued: 0, running: 1, completed: 2, cancelled: 2, error: 2 };

/**
 * True when a turn reported `before` may later report `after`.
 * @param {string} before
 * @param {string} after
 */
export function mayFollow(before, after) {
  if (before === after) return true;
  const from = RANK[before];
  const to = RANK[after];
  if (from === undefined || to === undefined) return true; // not a turn state: nothing to order
  if (to > from) return true;
  if (to < from) return false;
  // Two different terminals: only an error may give way, to the outcome the agent settled with (docs/turn-routes.md).
  return before === 'error' && (after === 'completed' || after === 'cancelled');
}

/**
 * Pairs of answers where the later one was *requested after* the earlier one arrived (so no concurrency excuses it)
 * and reports a state that may not follow.
 * @param {Run} run
 * @returns {Violation[]}
 */
export function check(run) {
  /** @type {Violation[]} */
  const violations = [];
  for (const [promptId, seen] of groupBy(turnObservations(run.history), (o) => o.promptId)) {
    const byEnd = [...seen].sort((a, b) => a.end - b.end);
    for (const later of seen) {
      const earlier = byEnd.find((o) => o.end <= later.start && !mayFollow(o.state, later.state));
      if (!earlier) continue;
      violations.push({
        kind: 'went-back',
        message: `prompt ${promptId} went ${earlier.state} (${earlier.route}, answered ${earlier.end}) → ${later.state} (${later.route}, asked ${later.start})`,
        slice: [earlier.op, later.op],
      });
      break; // one violation a prompt says enough; the rest would repeat it
    }
  }
  return violations;
}
