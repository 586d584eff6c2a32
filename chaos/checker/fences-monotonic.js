// @ts-check
// Property: the fence the data dir records for a session only grows (issue 36: "fences can only increase"). The
// harness samples it every 250 ms (`fence` records, `source: 'file'`); a lower value after a higher one is a fence
// that two racing claims lowered, or one lost and read as less.
import { groupBy } from './turn-observations.js';

/** @typedef {import('./types.js').Run} Run */
/** @typedef {import('./types.js').Violation} Violation */

export const name = 'fences-monotonic';
export const description = 'the fence recorded on the data dir for a session never decreases';

/**
 * The sampled fences of one source, by session, in time order.
 * @param {Run} run
 * @param {'file' | 'lease'} source
 * @returns {Map<string, { t: number, fence: number, node?: string, sessionId: string }[]>}
 */
export function fenceSamples(run, source) {
  const samples = /** @type {any[]} */ (
    run.history.filter((r) => r.type === 'fence' && r.source === source && Number.isSafeInteger(r.fence))
  );
  return groupBy(
    samples.sort((a, b) => a.t - b.t),
    (r) => r.sessionId,
  );
}

/**
 * @param {Run} run
 * @returns {Violation[]}
 */
export function check(run) {
  /** @type {Violation[]} */
  const violations = [];
  for (const [sessionId, samples] of fenceSamples(run, 'file')) {
    let highest = samples[0];
    for (const sample of samples) {
      if (sample.fence < highest.fence) {
        violations.push({
          kind: 'decreased',
          message: `session ${sessionId}: the recorded fence went from ${highest.fence} (at ${highest.t}) to ${sample.fence} (at ${sample.t})`,
          slice: [highest, sample],
        });
        break;
      }
      highest = sample;
    }
  }
  return violations;
}
