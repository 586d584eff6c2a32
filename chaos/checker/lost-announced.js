// @ts-check
// Property: a prompt settled as lost (`daemon_lost`: its daemon died before it settled) is announced like any other
// terminal — a `turn.error` delivery of it answered 2xx by the operator's endpoint (issue 36: "every lost prompt
// announced"; the `webhook-delivery` property exempts these, since load writes them).
import { answeredOk, eventOf, targetOf } from './webhooks.js';
import { turnObservations } from './turn-observations.js';

/** @typedef {import('./types.js').Run} Run */
/** @typedef {import('./types.js').Violation} Violation */

export const name = 'lost-announced';
export const description = 'a daemon_lost prompt gets its turn.error webhook';

export const DAEMON_LOST = 'daemon_lost';

/**
 * The prompts settled as lost, with the evidence: a ledger `interrupted` record, or a route answering `error` with
 * code `daemon_lost`.
 * @param {Run} run
 * @returns {Map<string, { sessionId: string, evidence: any }>}
 */
export function lostPrompts(run) {
  /** @type {Map<string, { sessionId: string, evidence: any }>} */
  const lost = new Map();
  for (const [sessionId, records] of run.data.ledgers) {
    for (const entry of records) {
      const { record } = entry;
      if ((record.terminal === 'interrupted' || record.code === DAEMON_LOST) && !lost.has(record.promptId))
        lost.set(record.promptId, { sessionId, evidence: entry });
    }
  }
  for (const o of turnObservations(run.history)) {
    if (o.state === 'error' && o.status.error?.code === DAEMON_LOST && !lost.has(o.promptId))
      lost.set(o.promptId, { sessionId: o.sessionId, evidence: o.op });
  }
  return lost;
}

/**
 * @param {Run} run
 * @returns {Violation[]}
 */
export function check(run) {
  if (!run.meta.receiver || run.meta.operatorWebhook === false) return []; // nobody was owed every session's events
  /** @type {Set<string>} */
  const announced = new Set();
  for (const record of run.history) {
    if (record.type !== 'delivery' || !answeredOk(record)) continue;
    const target = targetOf(/** @type {any} */ (record));
    if (target !== undefined && target !== 'operator') continue;
    const event = eventOf(/** @type {any} */ (record));
    if (event?.type === 'turn.error' && typeof event.data?.promptId === 'string') announced.add(event.data.promptId);
  }
  /** @type {Violation[]} */
  const violations = [];
  for (const [promptId, { sessionId, evidence }] of lostPrompts(run)) {
    if (announced.has(promptId)) continue;
    violations.push({
      kind: 'no-webhook',
      message: `prompt ${promptId} (session ${sessionId}) settled daemon_lost, but no turn.error delivery of it was answered 2xx`,
      slice: [evidence],
    });
  }
  return violations;
}
