// @ts-check
// The history checker of a chaos run (issue 29): each property is a pure function of the recorded history and of
// what the data dirs hold; `checkRun(dir)` reads a run directory and checks them all.
import * as idempotency from './idempotency.js';
import * as terminal from './terminal.js';
import * as monotonic from './monotonic.js';
import * as webhooks from './webhooks.js';
import * as transcriptChain from './transcript-chain.js';
import * as fencing from './fencing.js';
import * as serverErrors from './server-errors.js';
import * as ackRecorded from './ack-recorded.js';
import * as keysUnique from './keys-unique.js';
import * as lostAnnounced from './lost-announced.js';
import * as fencesMonotonic from './fences-monotonic.js';
import * as fencedSilent from './fenced-silent.js';
import * as failover from './failover.js';
import { computeFigures } from './figures.js';
import { readRun } from './run-files.js';

export { formatReport } from './report.js';
export { readRun } from './run-files.js';

/** @typedef {import('./types.js').Run} Run */
/** @typedef {import('./types.js').PropertyResult} PropertyResult */

/** The properties, in the order the report lists them. */
export const PROPERTIES = [
  idempotency,
  terminal,
  monotonic,
  webhooks,
  transcriptChain,
  fencing,
  serverErrors,
  ackRecorded,
  keysUnique,
  lostAnnounced,
  fencesMonotonic,
  fencedSilent,
  failover,
];

/** A violation's signature, what CI gates on (chaos/known-gaps.json): its property and kind, never a time or an id. */
export const signatureOf = (/** @type {string} */ property, /** @type {{ kind?: string }} */ violation) =>
  `${property}:${violation.kind ?? 'violation'}`;

/**
 * The result of checking a run: each property's violations, the figures, and `ok` when there are none.
 * @typedef {{ dir?: string, seed?: string, index?: number, ok: boolean, properties: PropertyResult[],
 *   figures: ReturnType<typeof computeFigures> & { skippedLines?: number } }} CheckResult
 */

/**
 * Checks a run already in memory (pure: the specs feed it synthetic histories).
 * @param {Run} run
 * @returns {CheckResult}
 */
export function checkHistory(run) {
  const properties = PROPERTIES.map((property) => ({
    name: property.name,
    description: property.description,
    violations: property.check(run).map((violation) => ({ ...violation, signature: signatureOf(property.name, violation) })),
  }));
  return {
    dir: run.dir,
    seed: run.meta.seed,
    index: run.meta.index,
    ok: properties.every((property) => property.violations.length === 0),
    properties,
    figures: computeFigures(run),
  };
}

/**
 * Reads `<dir>/meta.json`, `<dir>/history.jsonl` and the nodes' data dirs, and checks every property.
 * @param {string} dir
 * @returns {CheckResult}
 */
export function checkRun(dir) {
  const run = readRun(dir);
  const result = checkHistory(run);
  return { ...result, figures: { ...result.figures, skippedLines: run.skippedLines } };
}
