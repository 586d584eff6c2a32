// @ts-check
// Duplicate deliveries: at-least-once allows them, so they are counted, not violations — per webhook-id, and per
// sending node (each node's operator endpoint has its own path, `/hook/<node>`; a subscription's is `/sub/<session>`).
import { answeredOk } from './webhooks.js';

/** @typedef {import('./types.js').Run} Run */

/** The node (or `subscription`) a delivery came from, as its path says; `?` when none was recorded. */
export function senderOf(/** @type {{ path?: string }} */ delivery) {
  if (typeof delivery.path !== 'string') return '?';
  if (delivery.path.startsWith('/sub/')) return 'subscription';
  const match = /^\/hook\/([^/?#]+)/.exec(delivery.path);
  return match ? decodeURIComponent(match[1] ?? '') : '?';
}

/**
 * @param {Run} run
 */
export function duplicateDeliveries(run) {
  /** @type {Map<string, Map<string, number>>} webhook-id (and receiver) → sender → deliveries answered 2xx */
  const byId = new Map();
  for (const record of run.history) {
    if (record.type !== 'delivery' || !answeredOk(record)) continue;
    const id = record.headers?.['webhook-id'];
    if (typeof id !== 'string') continue;
    const key = `${id}\0${record.path?.startsWith('/sub/') ? record.path : 'operator'}`;
    const senders = byId.get(key) ?? new Map();
    const sender = senderOf(/** @type {any} */ (record));
    senders.set(sender, (senders.get(sender) ?? 0) + 1);
    byId.set(key, senders);
  }
  /** @type {Record<string, { delivered: number, duplicates: number }>} */
  const bySender = {};
  let duplicated = 0;
  let extra = 0;
  let acrossSenders = 0;
  for (const senders of byId.values()) {
    const total = [...senders.values()].reduce((a, b) => a + b, 0);
    if (total > 1) {
      duplicated += 1;
      extra += total - 1;
    }
    if (senders.size > 1) acrossSenders += 1;
    for (const [sender, n] of senders) {
      const entry = (bySender[sender] ??= { delivered: 0, duplicates: 0 });
      entry.delivered += n;
      entry.duplicates += n - 1;
    }
  }
  return { ids: byId.size, duplicated, extra, acrossSenders, bySender };
}
