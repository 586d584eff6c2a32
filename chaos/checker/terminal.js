// @ts-check
// Property: every acknowledged prompt (a 202) reaches a terminal that the exact route, the list or the ledger reports;
// it is never queued/running past the settle time, and never 404 while it is still inside the bounded windows.
import {
  TERMINAL_STATES,
  LIVE_STATES,
  acknowledgedPrompts,
  groupBy,
  promptMisses,
  settleDeadline,
  turnObservations,
} from './turn-observations.js';

/** @typedef {import('./types.js').Run} Run */
/** @typedef {import('./types.js').Violation} Violation */

export const name = 'acknowledged-reach-terminal';
export const description =
  'every 202 reaches a terminal (route, list or ledger); nothing stuck past the settle time; no 404 inside the windows';

/** The overlay and the ledger's recent terminals both hold 64 turns a session (docs/turn-routes.md, docs/ledger.md). */
export const DEFAULT_WINDOW_TURNS = 64;

/**
 * The ledgers' terminal records by promptId, and each session's admissions (`in_flight`) in order.
 * @param {Run} run
 */
export function ledgerIndex(run) {
  /** @type {Map<string, import('./types.js').DataRecord[]>} */
  const terminals = new Map();
  /** @type {Map<string, import('./types.js').DataRecord[]>} */
  const admissions = new Map();
  for (const [sessionId, records] of run.data.ledgers) {
    admissions.set(
      sessionId,
      records.filter(({ record }) => record.state === 'in_flight'),
    );
    for (const entry of records) {
      if (typeof entry.record.terminal !== 'string') continue;
      const list = terminals.get(entry.record.promptId);
      if (list) list.push(entry);
      else terminals.set(entry.record.promptId, [entry]);
    }
  }
  return { terminals, admissions };
}

/**
 * How many prompts of the session were admitted after `promptId` and before `before`: by the clients' 202s or by
 * the ledger, whichever saw more (a 202 cut on the way is still in the ledger).
 */
function newerAdmissions(
  /** @type {string} */ promptId,
  /** @type {number} */ before,
  /** @type {{ promptId: string, op: import('./types.js').OpRecord }[]} */ sessionAcks,
  /** @type {import('./types.js').DataRecord[]} */ sessionLedger,
) {
  const ackIndex = sessionAcks.findIndex((ack) => ack.promptId === promptId);
  const acked = ackIndex < 0 ? 0 : sessionAcks.slice(ackIndex + 1).filter((ack) => ack.op.end < before).length;
  const ledgerIndexOf = sessionLedger.findIndex(({ record }) => record.promptId === promptId);
  const ledgered = ledgerIndexOf < 0 ? 0 : sessionLedger.slice(ledgerIndexOf + 1).filter(({ record }) => record.at < before).length;
  return Math.max(acked, ledgered);
}

/**
 * @param {Run} run
 * @returns {Violation[]}
 */
export function check(run) {
  const acked = acknowledgedPrompts(run.history);
  const observations = groupBy(turnObservations(run.history), (o) => o.promptId);
  const misses = groupBy(promptMisses(run.history), (m) => m.promptId);
  const { terminals, admissions } = ledgerIndex(run);
  const acksBySession = groupBy([...acked.values()], (ack) => ack.sessionId);
  const deadline = settleDeadline(run);
  const windowTurns = run.meta.windowTurns && run.meta.windowTurns > 0 ? run.meta.windowTurns : DEFAULT_WINDOW_TURNS;
  /** @type {Violation[]} */
  const violations = [];
  for (const { promptId, sessionId, op: ack } of acked.values()) {
    const seen = observations.get(promptId) ?? [];
    // A prompt admitted after the last heal has its own settle time, counted from its admission.
    const settled = Math.max(deadline, ack.start + (run.meta.settleMs ?? 0));
    const stuck = seen.filter((o) => LIVE_STATES.has(o.state) && o.start >= settled);
    if (stuck.length > 0) {
      violations.push({
        kind: 'stuck',
        message: `prompt ${promptId} (session ${sessionId}) still ${stuck[0].state} at ${stuck[0].start}, past the settle time ${settled}`,
        slice: [ack, ...stuck.slice(0, 3).map((o) => o.op)],
      });
    }
    const terminal = seen.find((o) => TERMINAL_STATES.has(o.state));
    const ledgered = terminals.get(promptId);
    if (!terminal && !ledgered) {
      violations.push({
        kind: 'never-settled',
        message: `prompt ${promptId} (session ${sessionId}) was acknowledged but no route, list or ledger ever reported a terminal`,
        slice: [ack, ...seen.slice(-3).map((o) => o.op)],
      });
    }
    for (const miss of misses.get(promptId) ?? []) {
      const newer = newerAdmissions(promptId, miss.op.start, acksBySession.get(sessionId) ?? [], admissions.get(sessionId) ?? []);
      if (newer >= windowTurns) continue; // the bounded windows moved on: a documented 404
      violations.push({
        kind: '404-inside-window',
        message: `prompt ${promptId} (session ${sessionId}) answered 404 at ${miss.op.start} with only ${newer} newer prompts (window ${windowTurns})`,
        slice: [ack, miss.op],
      });
    }
  }
  return violations;
}
