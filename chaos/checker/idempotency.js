// @ts-check
// Property: one Idempotency-Key admitted at most one prompt, and never two different bodies (docs/idempotency.md).
import { groupBy, opsOf } from './turn-observations.js';

/** @typedef {import('./types.js').Run} Run */
/** @typedef {import('./types.js').Violation} Violation */

export const name = 'idempotency';
export const description = 'one Idempotency-Key admits at most one prompt, and never two different bodies';

/** The promptId a prompt op was acknowledged with. */
const ackedPromptId = (/** @type {import('./types.js').OpRecord} */ op) =>
  typeof op.body?.promptId === 'string' ? op.body.promptId : (op.promptId ?? undefined);

/**
 * From the history: acknowledged (202) prompts grouped by session, client and key (keys are scoped per session and
 * client id); a retry that got the same promptId back is the replay the key exists for.
 * @param {Run} run
 * @returns {Violation[]}
 */
function fromHistory(run) {
  const keyed = opsOf(run.history).filter((op) => op.op === 'prompt' && op.status === 202 && typeof op.idempotencyKey === 'string');
  const violations = [];
  for (const ops of groupBy(keyed, (op) => JSON.stringify([op.sessionId, op.client, op.idempotencyKey])).values()) {
    const { sessionId, idempotencyKey } = ops[0];
    const promptIds = new Set(ops.map(ackedPromptId).filter((id) => id !== undefined));
    if (promptIds.size > 1) {
      violations.push({
        kind: 'two-prompts',
        message: `key ${idempotencyKey} on session ${sessionId} admitted ${promptIds.size} prompts: ${[...promptIds].join(', ')}`,
        slice: ops,
      });
    }
    const bodies = new Set(ops.map((op) => op.bodyHash).filter((hash) => typeof hash === 'string'));
    if (bodies.size > 1) {
      violations.push({
        kind: 'two-bodies',
        message: `key ${idempotencyKey} on session ${sessionId} accepted ${bodies.size} different bodies`,
        slice: ops,
      });
    }
  }
  return violations;
}

/**
 * From the transcripts: every prompt that reached its session carries the key it was admitted with, so two user
 * records under one key (and client id) are two admissions, whether or not a client saw both answers.
 * @param {Run} run
 * @returns {Violation[]}
 */
function fromTranscripts(run) {
  const violations = [];
  for (const transcript of run.data.transcripts) {
    const keyed = transcript.records.filter(({ record }) => record.type === 'user' && typeof record.idempotency?.key === 'string');
    const groups = groupBy(keyed, ({ record }) => JSON.stringify([record.idempotency.clientId ?? null, record.idempotency.key]));
    for (const records of groups.values()) {
      const key = records[0].record.idempotency.key;
      const promptIds = new Set(records.map(({ record }) => record.promptId));
      if (promptIds.size > 1) {
        violations.push({
          kind: 'transcript-two-prompts',
          message: `key ${key} on session ${transcript.sessionId} reached the transcript with ${promptIds.size} prompts: ${[...promptIds].join(', ')}`,
          slice: records,
        });
      }
      const fingerprints = new Set(records.map(({ record }) => record.idempotency.fingerprint));
      if (fingerprints.size > 1) {
        violations.push({
          kind: 'transcript-two-bodies',
          message: `key ${key} on session ${transcript.sessionId} recorded ${fingerprints.size} different bodies`,
          slice: records,
        });
      }
    }
  }
  return violations;
}

/**
 * @param {Run} run
 * @returns {Violation[]}
 */
export function check(run) {
  return [...fromHistory(run), ...fromTranscripts(run)];
}
