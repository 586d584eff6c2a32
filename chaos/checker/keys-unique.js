// @ts-check
// Property: an Idempotency-Key names one thing, whoever is asked and whatever survived: one prompt per session and key
// across the 202s, the ledger and the transcript, and one session per create key across the nodes a create reached.
import { groupBy, opsOf } from './turn-observations.js';

/** @typedef {import('./types.js').Run} Run */
/** @typedef {import('./types.js').Violation} Violation */

export const name = 'keys-unique';
export const description = 'one key: one prompt across 202s, ledger and transcript; one session across the nodes a create reached';

/** The key a ledger record carries, in whichever field the ledger keeps it (issue 36 adds it to in_flight). */
export function ledgerKeyOf(/** @type {any} */ record) {
  const key = record.idempotency?.key ?? record.idempotencyKey ?? record.key;
  return typeof key === 'string' ? key : undefined;
}

/**
 * @param {Run} run
 * @returns {Violation[]}
 */
function promptKeys(run) {
  /** @type {Map<string, { promptIds: Set<string>, evidence: any[] }>} by session and key */
  const keys = new Map();
  const add = (/** @type {string} */ sessionId, /** @type {string} */ key, /** @type {string} */ promptId, /** @type {any} */ evidence) => {
    const id = JSON.stringify([sessionId, key]);
    const entry = keys.get(id) ?? { promptIds: new Set(), evidence: [] };
    if (!entry.promptIds.has(promptId)) entry.evidence.push(evidence);
    entry.promptIds.add(promptId);
    keys.set(id, entry);
  };
  for (const op of opsOf(run.history)) {
    const promptId = typeof op.body?.promptId === 'string' ? op.body.promptId : undefined;
    if (op.op === 'prompt' && op.status === 202 && typeof op.idempotencyKey === 'string' && promptId && op.sessionId)
      add(op.sessionId, op.idempotencyKey, promptId, op);
  }
  for (const [sessionId, records] of run.data.ledgers) {
    for (const entry of records) {
      const key = ledgerKeyOf(entry.record);
      if (key) add(sessionId, key, entry.record.promptId, entry);
    }
  }
  for (const transcript of run.data.transcripts) {
    for (const entry of transcript.records) {
      const key = entry.record.type === 'user' ? entry.record.idempotency?.key : undefined;
      if (typeof key === 'string' && typeof entry.record.promptId === 'string')
        add(transcript.sessionId, key, entry.record.promptId, entry);
    }
  }
  /** @type {Violation[]} */
  const violations = [];
  for (const [id, { promptIds, evidence }] of keys) {
    if (promptIds.size < 2) continue;
    const [sessionId, key] = JSON.parse(id);
    violations.push({
      kind: 'prompt-key-two-prompts',
      message: `key ${key} on session ${sessionId} names ${promptIds.size} prompts across 202s, ledger and transcript: ${[...promptIds].join(', ')}`,
      slice: evidence.slice(0, 4),
    });
  }
  return violations;
}

/**
 * @param {Run} run
 * @returns {Violation[]}
 */
function createKeys(run) {
  const creates = opsOf(run.history).filter(
    (op) => op.op === 'create' && typeof op.idempotencyKey === 'string' && typeof op.body?.sessionId === 'string' && (op.status ?? 0) < 300,
  );
  /** @type {Violation[]} */
  const violations = [];
  for (const ops of groupBy(creates, (op) => String(op.idempotencyKey)).values()) {
    const sessions = new Set(ops.map((op) => op.body.sessionId));
    if (sessions.size < 2) continue;
    violations.push({
      kind: 'create-key-two-sessions',
      message: `create key ${ops[0].idempotencyKey} made ${sessions.size} sessions: ${[...sessions].join(', ')}`,
      slice: ops.slice(0, 4),
    });
  }
  return violations;
}

/**
 * @param {Run} run
 * @returns {Violation[]}
 */
export function check(run) {
  return [...promptKeys(run), ...createKeys(run)];
}
