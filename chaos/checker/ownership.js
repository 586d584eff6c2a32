// @ts-check
// Who owned each session when, as the clients saw it: a create or a load answered 2xx names its owner in
// `X-Turns-Node` (a load that reached another node is forwarded to the owner, whose answer carries its own name).
// A create answered from its key's record (`Idempotent-Replayed: true`) claims nothing: any node may replay it.
import { isSuccess, opsOf } from './turn-observations.js';

/** @typedef {import('./types.js').OpRecord} OpRecord */

/** The header a daemon names itself in (the owner on a forwarded answer). */
export const NODE_HEADER = 'x-turns-node';

/** The node that answered an op, when the harness recorded it. */
export function servedBy(/** @type {OpRecord} */ op) {
  const headers = op.headers ?? {};
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === NODE_HEADER && value) return String(value);
  return undefined;
}

/** An answer replayed from an idempotency key's record: the handler did not run. */
export function isReplay(/** @type {OpRecord} */ op) {
  for (const [key, value] of Object.entries(op.headers ?? {})) if (key.toLowerCase() === 'idempotent-replayed') return value === 'true';
  return false;
}

/** The session an op is about: its `sessionId`, else a create's answer. */
export function sessionOf(/** @type {OpRecord} */ op) {
  if (typeof op.sessionId === 'string' && op.sessionId !== '') return op.sessionId;
  return typeof op.body?.sessionId === 'string' ? op.body.sessionId : undefined;
}

/**
 * Each session's owners in time order: `{ node, since, op }`, `since` being when the claiming answer arrived.
 * @param {import('./types.js').HistoryRecord[]} history
 * @returns {Map<string, { node: string, since: number, op: OpRecord }[]>}
 */
export function ownershipTimeline(history) {
  /** @type {Map<string, { node: string, since: number, op: OpRecord }[]>} */
  const owners = new Map();
  const claims = opsOf(history)
    .filter((op) => (op.op === 'create' || op.op === 'load') && isSuccess(op) && !isReplay(op))
    .sort((a, b) => a.end - b.end);
  for (const op of claims) {
    const sessionId = sessionOf(op);
    const node = servedBy(op);
    if (!sessionId || !node) continue;
    const list = owners.get(sessionId) ?? [];
    if (list.at(-1)?.node !== node) list.push({ node, since: op.end, op });
    owners.set(sessionId, list);
  }
  return owners;
}

/**
 * The owner of a session at a time (the last claim answered before it), or undefined.
 * @param {{ node: string, since: number, op: OpRecord }[] | undefined} timeline
 * @param {number} at
 */
export function ownerAt(timeline, at) {
  let owner;
  for (const entry of timeline ?? []) if (entry.since <= at) owner = entry;
  return owner;
}

/** True when any op of the history names the node that served it. */
export function historyNamesNodes(/** @type {import('./types.js').HistoryRecord[]} */ history) {
  return opsOf(history).some((op) => servedBy(op) !== undefined);
}

/**
 * The answers a node gave while serving a session: 2xx, naming the session and the node, not a claim (a create or load
 * answered 2xx takes the lease rather than serving under one).
 * @param {import('./types.js').HistoryRecord[]} history
 * @returns {{ op: OpRecord, sessionId: string, node: string }[]}
 */
export function servedAnswers(history) {
  return opsOf(history).flatMap((op) => {
    if (!isSuccess(op) || op.op === 'create' || op.op === 'load') return [];
    const sessionId = sessionOf(op);
    const node = servedBy(op);
    return sessionId && node ? [{ op, sessionId, node }] : [];
  });
}
