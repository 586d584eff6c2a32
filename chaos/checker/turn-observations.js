// @ts-check
// What the clients saw of each prompt: acknowledgements (202), the states the turn routes reported, and misses (404).

/** @typedef {import('./types.js').OpRecord} OpRecord */
/** @typedef {import('./types.js').HistoryRecord} HistoryRecord */
/** @typedef {import('./types.js').Run} Run */

/**
 * One state a turn route reported for a prompt.
 * @typedef {object} Observation
 * @property {string} promptId
 * @property {string} sessionId
 * @property {string} state queued | running | completed | cancelled | error
 * @property {any} status the turn status object as answered
 * @property {number} start when the request was sent
 * @property {number} end when the answer arrived
 * @property {'exact' | 'current' | 'list'} route
 * @property {OpRecord} op
 */

export const TERMINAL_STATES = new Set(['completed', 'cancelled', 'error']);
export const LIVE_STATES = new Set(['queued', 'running']);

/** Every op record of the history, in order. */
export function opsOf(/** @type {HistoryRecord[]} */ history) {
  return /** @type {OpRecord[]} */ (history.filter((record) => record.type === 'op'));
}

/** The time a record happened at: an op's start, anything else's `t`. */
export function timeOf(/** @type {HistoryRecord} */ record) {
  return record.type === 'op' ? /** @type {OpRecord} */ (record).start : /** @type {any} */ (record).t;
}

/** True for a 2xx answer. */
export function isSuccess(/** @type {OpRecord} */ op) {
  return typeof op.status === 'number' && op.status >= 200 && op.status < 300;
}

const TURNS_PATH = /^\/session\/([^/?#]+)\/turns(?:\/([^/?#]+))?\/?(?:[?#].*)?$/;

/**
 * Which turn route a path names: `{ sessionId, route, promptId? }`, or undefined for any other path.
 * @param {string | undefined} path
 * @returns {{ sessionId: string, route: 'exact' | 'current' | 'list', promptId?: string } | undefined}
 */
export function turnRouteOf(path) {
  const match = typeof path === 'string' ? TURNS_PATH.exec(path) : null;
  if (!match) return undefined;
  const sessionId = decodeURIComponent(match[1] ?? '');
  const tail = match[2] === undefined ? undefined : decodeURIComponent(match[2]);
  if (tail === undefined) return { sessionId, route: 'list' };
  if (tail === 'current') return { sessionId, route: 'current' };
  return { sessionId, route: 'exact', promptId: tail };
}

/**
 * The prompts the daemon acknowledged (a 202 with a promptId), by promptId, with the first acknowledging op.
 * @param {HistoryRecord[]} history
 * @returns {Map<string, { promptId: string, sessionId: string, op: OpRecord }>}
 */
export function acknowledgedPrompts(history) {
  const acked = new Map();
  for (const op of opsOf(history)) {
    if (op.op !== 'prompt' || op.status !== 202) continue;
    const promptId = typeof op.body?.promptId === 'string' ? op.body.promptId : op.promptId;
    if (typeof promptId !== 'string' || acked.has(promptId)) continue;
    acked.set(promptId, { promptId, sessionId: String(op.sessionId ?? ''), op });
  }
  return acked;
}

/**
 * Every prompt state a turn route reported (exact, current, list, long-polls, final reads), in history order.
 * A 304 says "unchanged" and adds nothing.
 * @param {HistoryRecord[]} history
 * @returns {Observation[]}
 */
export function turnObservations(history) {
  /** @type {Observation[]} */
  const observed = [];
  for (const op of opsOf(history)) {
    if (op.status !== 200 || typeof op.body !== 'object' || op.body === null) continue;
    const target = turnRouteOf(op.path);
    if (!target) continue;
    const statuses = target.route === 'list' ? (Array.isArray(op.body.turns) ? op.body.turns : []) : [op.body];
    for (const status of statuses) {
      if (typeof status?.promptId !== 'string' || typeof status.state !== 'string' || status.state === 'idle') continue;
      observed.push({
        promptId: status.promptId,
        sessionId: target.sessionId,
        state: status.state,
        status,
        start: op.start,
        end: op.end,
        route: target.route,
        op,
      });
    }
  }
  return observed;
}

/**
 * The exact route's `404 prompt_not_found` answers, by promptId.
 * @param {HistoryRecord[]} history
 * @returns {{ promptId: string, sessionId: string, op: OpRecord }[]}
 */
export function promptMisses(history) {
  const misses = [];
  for (const op of opsOf(history)) {
    if (op.status !== 404 || op.body?.code !== 'prompt_not_found') continue;
    const target = turnRouteOf(op.path);
    if (target?.route !== 'exact' || target.promptId === undefined) continue;
    misses.push({ promptId: target.promptId, sessionId: target.sessionId, op });
  }
  return misses;
}

/** Groups items by a key, keeping their order. */
export function groupBy(/** @type {any[]} */ items, /** @type {(item: any) => string} */ keyOf) {
  /** @type {Map<string, any[]>} */
  const groups = new Map();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/**
 * Every promptId the daemon admitted by any account: acknowledged, in a ledger, in a transcript, or reported by a route.
 * @param {Run} run
 * @returns {Set<string>}
 */
export function admittedPromptIds(run) {
  const admitted = new Set(acknowledgedPrompts(run.history).keys());
  for (const observation of turnObservations(run.history)) admitted.add(observation.promptId);
  for (const records of run.data.ledgers.values()) for (const { record } of records) admitted.add(record.promptId);
  for (const transcript of run.data.transcripts) {
    for (const { record } of transcript.records) if (typeof record.promptId === 'string') admitted.add(record.promptId);
  }
  for (const record of run.history) {
    if (record.type === 'sse' && typeof record.data?.promptId === 'string') admitted.add(record.data.promptId);
  }
  return admitted;
}

/**
 * The time after which nothing may still be queued or running: the last fault healed plus the settle time; with no
 * `healedAt` recorded, the first final read (the harness makes those once the settle time has passed), else never.
 * @param {Run} run
 */
export function settleDeadline(run) {
  const { healedAt, settleMs } = run.meta;
  if (typeof healedAt === 'number' && healedAt > 0) return healedAt + (settleMs ?? 0);
  const finals = opsOf(run.history).filter((op) => op.op.startsWith('final-'));
  return finals.length > 0 ? Math.min(...finals.map((op) => op.start)) : Infinity;
}
