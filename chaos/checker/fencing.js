// @ts-check
// Property: no node served a session after its lease was fenced — once another node's claim (a load) was answered,
// every request sent after it is answered by the new owner (directly or forwarded), never by the old one.
import { ownerAt, ownershipTimeline, servedAnswers } from './ownership.js';

/** @typedef {import('./types.js').Run} Run */
/** @typedef {import('./types.js').Violation} Violation */

export const name = 'fencing';
export const description = 'after a lease moved, the old owner serves the session no more';

/**
 * Needs the harness to record `X-Turns-Node` (see CHAOS-HISTORY.md); without it there is nothing to compare.
 * @param {Run} run
 * @returns {Violation[]}
 */
export function check(run) {
  const owners = ownershipTimeline(run.history);
  /** @type {Violation[]} */
  const violations = [];
  /** @type {Set<string>} one violation a session and node is enough */
  const reported = new Set();
  for (const { op, sessionId, node } of servedAnswers(run.history)) {
    const timeline = owners.get(sessionId);
    const owner = ownerAt(timeline, op.start);
    if (!owner || owner.node === node) continue;
    // Answered by a node whose own claim was under way before the answer arrived: the new owner, mid-claim.
    if ((timeline ?? []).some((entry) => entry.node === node && entry.since > owner.since && entry.op.start <= op.end)) continue;
    // Served by a node that owned the session earlier: its lease had passed to `owner.node` before this was sent.
    const earlier = (timeline ?? []).find((entry) => entry.node === node && entry.since < owner.since);
    if (!earlier || reported.has(`${sessionId}\0${node}`)) continue;
    reported.add(`${sessionId}\0${node}`);
    violations.push({
      kind: 'old-owner-served',
      message: `${node} answered ${op.method ?? ''} ${op.path ?? op.op} of session ${sessionId} at ${op.start}, after ${owner.node} claimed it at ${owner.since}`,
      slice: [earlier.op, owner.op, op],
    });
  }
  return violations;
}
