// @ts-check
// Property: one writer at a time appended to each session's transcript. Two nodes appending in overlapping lease
// periods show in the file as a broken parent chain (a parent never written before), a second root, a fork of the
// chain that is not a rewind, or interleaved turns (a prompt's records resumed after another prompt's began).

/** @typedef {import('./types.js').Run} Run */
/** @typedef {import('./types.js').Violation} Violation */
/** @typedef {import('./types.js').DataRecord} DataRecord */

export const name = 'transcript-single-writer';
export const description = "each transcript is one parent chain with whole turns: no second writer's records in it";

const isRewind = (/** @type {any} */ record) => record.type === 'system' && record.subtype === 'rewind';
const isTurnResult = (/** @type {any} */ record) => record.type === 'system' && record.subtype === 'turn_result';

/**
 * The problems of one transcript, in file order.
 * @param {{ file: string, sessionId: string, records: DataRecord[] }} transcript
 * @returns {Violation[]}
 */
export function chainProblems(transcript) {
  /** @type {Violation[]} */
  const violations = [];
  /** @type {Map<string, DataRecord>} */
  const byUuid = new Map();
  /** @type {Map<string, DataRecord>} the first child of each parent */
  const childOf = new Map();
  /** @type {Map<string, DataRecord>} */
  const resultOf = new Map();
  const finishedTurns = new Set();
  /** @type {DataRecord | undefined} */
  let turnStart;
  const where = `${transcript.file} (session ${transcript.sessionId})`;
  for (const entry of transcript.records) {
    const { record } = entry;
    if (byUuid.has(record.uuid)) {
      violations.push({
        kind: 'uuid-twice',
        message: `${where}: uuid ${record.uuid} written twice (line ${entry.line})`,
        slice: [byUuid.get(record.uuid), entry],
      });
    }
    const parent = record.parentUuid ?? null;
    if (parent === null && byUuid.size > 0 && !isRewind(record)) {
      violations.push({
        kind: 'second-root',
        message: `${where}: a second root at line ${entry.line}`,
        slice: [transcript.records[0], entry],
      });
    } else if (parent !== null && !byUuid.has(parent)) {
      violations.push({
        kind: 'unknown-parent',
        message: `${where}: line ${entry.line} names parent ${parent}, never written before it`,
        slice: [entry],
      });
    }
    const sibling = parent === null ? undefined : childOf.get(parent);
    if (sibling && !isRewind(record)) {
      violations.push({
        kind: 'two-writers',
        message: `${where}: lines ${sibling.line} and ${entry.line} both continue ${parent} (two writers)`,
        slice: [sibling, entry],
      });
    } else if (!sibling && parent !== null) {
      childOf.set(parent, entry);
    }
    byUuid.set(record.uuid, entry);

    const promptId = typeof record.promptId === 'string' ? record.promptId : undefined;
    if (promptId === undefined) continue;
    if (isTurnResult(record) && resultOf.has(promptId)) {
      violations.push({
        kind: 'two-results',
        message: `${where}: prompt ${promptId} has two turn_result records (run twice)`,
        slice: [resultOf.get(promptId), entry],
      });
      continue;
    }
    if (turnStart && turnStart.record.promptId !== promptId) finishedTurns.add(turnStart.record.promptId);
    if (finishedTurns.has(promptId)) {
      violations.push({
        kind: 'interleaved',
        message: `${where}: prompt ${promptId} has a record at line ${entry.line} after its turn ended or another began`,
        slice: [...(turnStart ? [turnStart] : []), entry],
      });
    }
    if (!turnStart || turnStart.record.promptId !== promptId) turnStart = entry;
    if (isTurnResult(record)) {
      resultOf.set(promptId, entry);
      finishedTurns.add(promptId);
    }
  }
  return violations;
}

/**
 * @param {Run} run
 * @returns {Violation[]}
 */
export function check(run) {
  return run.data.transcripts.flatMap(chainProblems);
}
