// @ts-check
// Property: every settled turn is delivered to the subscribed receiver at least once (a 2xx answer), every delivery's
// signature verifies, and no delivery names a prompt that was never admitted (docs/webhooks.md).
import { signatureProblem } from './webhook-signature.js';
import { acknowledgedPrompts, admittedPromptIds, groupBy, opsOf, turnObservations } from './turn-observations.js';

/** @typedef {import('./types.js').Run} Run */
/** @typedef {import('./types.js').Violation} Violation */

export const name = 'webhook-delivery';
export const description = 'every published terminal delivered at least once; every signature verifies; no delivery of an unknown prompt';

const TERMINAL_EVENTS = new Set(['turn.completed', 'turn.cancelled', 'turn.error']);
const SUBSCRIBE_PATH = /^\/session\/([^/?#]+)\/webhooks\/?(?:[?#].*)?$/;

/** The event a delivery carries, or undefined when its body is not JSON. */
export function eventOf(/** @type {{ raw?: string }} */ delivery) {
  try {
    const event = JSON.parse(delivery.raw ?? '');
    return typeof event === 'object' && event !== null ? event : undefined;
  } catch {
    return undefined;
  }
}

export const answeredOk = (/** @type {any} */ delivery) =>
  typeof delivery.answered === 'number' && delivery.answered >= 200 && delivery.answered < 300;

/**
 * Sessions a subscription was made for (a `201` to `POST /session/:id/webhooks`), with when it was first answered;
 * undefined when the history holds none, i.e. the daemons send every session's terminals to the operator endpoint
 * (`TURNS_WEBHOOK_URL`).
 * @param {Run} run
 * @returns {Map<string, number> | undefined}
 */
function subscribedSessions(run) {
  const subscribed = opsOf(run.history).filter((op) => op.method === 'POST' && op.status === 201 && SUBSCRIBE_PATH.test(op.path ?? ''));
  if (subscribed.length === 0) return undefined;
  const since = new Map();
  for (const op of subscribed) {
    const sessionId = decodeURIComponent(SUBSCRIBE_PATH.exec(op.path ?? '')?.[1] ?? '');
    since.set(sessionId, Math.min(since.get(sessionId) ?? Infinity, op.end));
  }
  return since;
}

/**
 * Prompts whose terminal a live bridge published — the ones a webhook event is owed for. Evidence: the ledger's
 * terminal record (not one written by reconciliation at `load`, which publishes nothing), an SSE terminal event, or a
 * route's terminal answer that came from the overlay (it carries `queuedAt`; a persisted-only answer does not).
 * @param {Run} run
 * @returns {Map<string, { sessionId: string, evidence: any }>} by promptId
 */
export function publishedTerminals(run) {
  /** @type {Map<string, { sessionId: string, evidence: any }>} */
  const published = new Map();
  for (const [sessionId, records] of run.data.ledgers) {
    for (const entry of records) {
      const { record } = entry;
      if (typeof record.terminal !== 'string' || record.terminal === 'interrupted') continue;
      if (record.stopReason === 'reconstructed_from_transcript' || published.has(record.promptId)) continue;
      published.set(record.promptId, { sessionId, evidence: entry });
    }
  }
  for (const record of run.history) {
    if (record.type !== 'sse' || (record.event !== 'turn_complete' && record.event !== 'turn_error')) continue;
    const promptId = record.data?.promptId;
    if (typeof promptId === 'string' && !published.has(promptId))
      published.set(promptId, { sessionId: record.sessionId, evidence: record });
  }
  for (const o of turnObservations(run.history)) {
    if (published.has(o.promptId) || typeof o.status.queuedAt !== 'number') continue;
    if (o.state === 'completed' || o.state === 'cancelled' || o.state === 'error')
      published.set(o.promptId, { sessionId: o.sessionId, evidence: o.op });
  }
  return published;
}

/**
 * Where a delivery went: `subscription:<sessionId>` for a per-session subscription's receiver (the harness gives each
 * `/sub/<sessionId>`), else `operator`; undefined when the receiver recorded no path (it counts for either).
 * @param {{ path?: string }} delivery
 */
export function targetOf(delivery) {
  if (typeof delivery.path !== 'string') return undefined;
  const match = /^\/sub\/([^/?#]+)/.exec(delivery.path);
  return match ? `subscription:${decodeURIComponent(match[1] ?? '')}` : 'operator';
}

/**
 * The secrets a delivery may be signed with: the operator's, or those the session's subscriptions were given (their
 * `201` answers carry them, once).
 * @param {Run} run
 */
function secretsOf(run) {
  /** @type {Map<string, string[]>} */
  const bySession = new Map();
  for (const op of opsOf(run.history)) {
    const match = op.method === 'POST' && op.status === 201 ? SUBSCRIBE_PATH.exec(op.path ?? '') : null;
    if (!match || typeof op.body?.secret !== 'string') continue;
    const sessionId = decodeURIComponent(match[1] ?? '');
    bySession.set(sessionId, [...(bySession.get(sessionId) ?? []), op.body.secret]);
  }
  return (/** @type {{ path?: string }} */ delivery) => {
    const target = targetOf(delivery);
    const own = target?.startsWith('subscription:') ? (bySession.get(target.slice('subscription:'.length)) ?? []) : [];
    const operator = run.meta.webhookSecret ? [run.meta.webhookSecret] : [];
    return target === 'operator' ? operator : target === undefined ? [...operator, ...[...bySession.values()].flat()] : own;
  };
}

/**
 * @param {Run} run
 * @returns {Violation[]}
 */
export function check(run) {
  const deliveries = run.history.filter((record) => record.type === 'delivery');
  if (!run.meta.receiver && deliveries.length === 0) return []; // no receiver in this run: nothing was subscribed
  /** @type {Violation[]} */
  const violations = [];
  const admitted = admittedPromptIds(run);
  const secrets = secretsOf(run);
  /** @type {any[]} */
  const verified = [];
  for (const delivery of deliveries) {
    const candidates = secrets(/** @type {any} */ (delivery));
    // A subscription made by a request the client saw fail (a forward cut by a partition, its bytes delivered at
    // heal): no `201` recorded its secret, so it cannot be verified here, nor is anything owed to it.
    if (candidates.length === 0 && targetOf(/** @type {any} */ (delivery))?.startsWith('subscription:')) continue;
    const problems = candidates.map((secret) => signatureProblem(secret, /** @type {any} */ (delivery)));
    if (!problems.includes(undefined)) {
      const problem = problems[0] ?? 'no secret known for its receiver';
      const id = delivery.headers?.['webhook-id'] ?? '?';
      violations.push({ kind: 'bad-signature', message: `delivery ${id} does not verify: ${problem}`, slice: [delivery] });
      continue;
    }
    const event = eventOf(/** @type {any} */ (delivery));
    const promptId = event?.data?.promptId;
    if (typeof promptId !== 'string') {
      const id = delivery.headers?.['webhook-id'];
      violations.push({ kind: 'not-a-turn-event', message: `delivery ${id} is not a turn event`, slice: [delivery] });
      continue;
    }
    if (!admitted.has(promptId)) {
      violations.push({
        kind: 'unknown-prompt',
        message: `delivery ${delivery.headers?.['webhook-id']} names prompt ${promptId}, never admitted`,
        slice: [delivery],
      });
      continue;
    }
    verified.push({ delivery, event, promptId, target: targetOf(/** @type {any} */ (delivery)) });
  }
  const byPrompt = groupBy(verified, (v) => v.promptId);
  const subscribed = subscribedSessions(run);
  // The operator's endpoint receives every session's terminals; without a word in meta, only when nothing subscribed.
  const operator = run.meta.operatorWebhook ?? !subscribed;
  const acked = acknowledgedPrompts(run.history);
  const pending = groupBy(run.data.outbox, ({ record }) => String(record.promptId));
  for (const [promptId, { sessionId, evidence }] of publishedTerminals(run)) {
    const ack = acked.get(promptId);
    // A subscription is owed only what was sent after it existed.
    const subscription = subscribed?.has(sessionId) && (!ack || ack.op.start >= (subscribed.get(sessionId) ?? Infinity));
    const owed = [...(operator ? ['operator'] : []), ...(subscription ? [`subscription:${sessionId}`] : [])];
    for (const target of owed) {
      const got = (byPrompt.get(promptId) ?? []).filter(
        (v) => TERMINAL_EVENTS.has(v.event.type) && (v.target === undefined || v.target === target),
      );
      if (got.some((v) => answeredOk(v.delivery))) continue;
      const still = pending.get(promptId) ?? [];
      violations.push({
        kind: target === 'operator' ? 'undelivered' : 'undelivered-to-subscription',
        message:
          `prompt ${promptId} (session ${sessionId}) settled but no delivery of it to ${target} was answered 2xx ` +
          `(${got.length} attempts received${still.length > 0 ? `, ${still.length} still in an outbox` : ''})`,
        slice: [...(ack ? [ack.op] : []), evidence, ...got.slice(0, 3).map((v) => v.delivery), ...still.slice(0, 1)],
      });
    }
  }
  return violations;
}
