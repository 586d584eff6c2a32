import { receiverOf } from './delivery-receiver.js';
import { attemptFailureOf } from './delivery-verdict.js';
import { signTurnWebhook } from './turn-webhook-signature.js';
import type { WebhookDelivery } from './webhook-delivery.js';
import { sendWebhook, type AttemptResult } from './webhook-sender.js';
import type { WebhookSettings } from './webhooks.settings.js';
import type { WebhookSubscriptions } from './webhook-subscriptions.service.js';

/** How one attempt ended: its receiver gone, cut short by shutdown, or made (answered, or failed for `reason`). */
export type AttemptOutcome =
  { kind: 'removed' } | { kind: 'aborted' } | { kind: 'made'; result?: AttemptResult; reason?: string; file?: string };

/**
 * Signs and sends one attempt to the delivery's receiver as it is stored now, and records on the delivery what the
 * receiver answered (`lastStatus`) or why it did not (`lastError`).
 */
export async function attemptDelivery(
  delivery: WebhookDelivery,
  settings: WebhookSettings,
  subscriptions: WebhookSubscriptions,
  now: () => number,
  signal: AbortSignal,
): Promise<AttemptOutcome> {
  let file: string | undefined;
  try {
    const target = await receiverOf(delivery, settings, subscriptions);
    if (!target) return { kind: 'removed' };
    file = target.file;
    const headers = signTurnWebhook(target.secret, delivery.deliveryId, now(), delivery.body);
    if (target.token !== undefined) headers.authorization = `Bearer ${target.token}`;
    const result = await sendWebhook(target.checked, headers, delivery.body, settings.timeoutMs, signal);
    delivery.lastStatus = result.status;
    delete delivery.lastError;
    return { kind: 'made', result, file };
  } catch (error) {
    // Aborted by shutdown: the outbox keeps it as it was.
    if (signal.aborted) return { kind: 'aborted' };
    const failure = attemptFailureOf(error);
    delivery.lastError = failure.error;
    delete delivery.lastStatus;
    return { kind: 'made', reason: failure.reason, file };
  }
}
