// @ts-check
// Property: once a higher fence than a node's own was on record for a session (the data dir's, or a lease another
// node held, as the harness sampled them), that node answers nothing more for the session — no read, and above all
// no 202 — unless it claimed the session again with a higher fence.
import { fenceSamples } from './fences-monotonic.js';
import { servedAnswers } from './ownership.js';

/** @typedef {import('./types.js').Run} Run */
/** @typedef {import('./types.js').Violation} Violation */

export const name = 'fenced-node-silent';
export const description = 'a node answers nothing for a session once a higher fence than its own is on record';

/** A reclaim sampled this long after the answer still explains it (the harness samples every 250 ms). */
const SAMPLING_SLACK_MS = 500;

/**
 * @param {Run} run
 * @returns {Violation[]}
 */
export function check(run) {
  const leases = fenceSamples(run, 'lease');
  const files = fenceSamples(run, 'file');
  /** @type {Violation[]} */
  const violations = [];
  const reported = new Set();
  for (const { op, sessionId, node } of servedAnswers(run.history)) {
    const held = leases.get(sessionId) ?? [];
    const own = held.filter((s) => s.node === node && s.t <= op.end).at(-1);
    if (!own) continue;
    // Another node's: a lease it held, or a fence file naming it (or no one, as earlier versions' files do) — a file
    // naming this node is its own claim, recorded a moment before the harness sampled its lease.
    const higher = [...held, ...(files.get(sessionId) ?? [])]
      .filter((s) => s.node !== node && s.fence > own.fence && s.t < op.start)
      .sort((a, b) => a.t - b.t)[0];
    if (!higher) continue;
    // Claimed again since, with a fence above the one that outranked it: a new lease, not a fenced one.
    if (held.some((s) => s.node === node && s.fence > higher.fence && s.t <= op.end + SAMPLING_SLACK_MS)) continue;
    const kind = op.op === 'prompt' && op.status === 202 ? 'admitted-after-fence' : 'answered-after-fence';
    const key = `${sessionId}\0${node}\0${kind}`;
    if (reported.has(key)) continue;
    reported.add(key);
    violations.push({
      kind,
      message:
        `${node} (fence ${own.fence}) answered ${op.status} to ${op.method ?? ''} ${op.path ?? op.op} at ${op.start}, ` +
        `after fence ${higher.fence}${higher.node ? ` (${higher.node})` : ' (data dir)'} was on record at ${higher.t}`,
      slice: [own, higher, op],
    });
  }
  return violations;
}
