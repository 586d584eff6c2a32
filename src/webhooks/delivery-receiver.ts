import { AddressPolicy } from './address-policy.js';
import type { FailureReport } from './receiver-health.js';
import type { WebhookDelivery } from './webhook-delivery.js';
import type { WebhookSettings } from './webhooks.settings.js';
import type { WebhookSubscriptions } from './webhook-subscriptions.service.js';
import { checkWebhookUrl, type CheckedTarget } from './webhook-url-guard.js';

/** The operator's endpoint is the operator's own setting: not subject to the SSRF guard. */
const ANY_ADDRESS = new AddressPolicy(['0.0.0.0/0', '::/0']);

/** Where an attempt is sent, and how it is signed. */
export interface DeliveryReceiver {
  checked: CheckedTarget;
  secret: string;
  token?: string;
  /** The subscriptions file, for a subscription's delivery (to disable it on a 410). */
  file?: string;
}

/**
 * The receiver of a delivery now: its subscription as currently stored (none
 * once removed or disabled), its URL checked again; rejects with
 * `ForbiddenWebhookUrl` when the SSRF guard refuses it.
 */
export async function receiverOf(
  delivery: WebhookDelivery,
  settings: Pick<WebhookSettings, 'operator' | 'policy' | 'resolver'>,
  subscriptions: Pick<WebhookSubscriptions, 'read'>,
): Promise<DeliveryReceiver | undefined> {
  const { resolver } = settings;
  if (delivery.target.kind === 'operator') {
    const operator = settings.operator;
    return operator && { checked: await checkWebhookUrl(operator.url, ANY_ADDRESS, resolver), secret: operator.secret };
  }
  const { file, webhookId } = delivery.target;
  const webhook = (await subscriptions.read(file)).find((w) => w.webhookId === webhookId);
  if (!webhook || webhook.disabledAt !== undefined) return undefined;
  const checked = await checkWebhookUrl(webhook.url, settings.policy, resolver);
  return { checked, secret: webhook.secret, token: webhook.token, file };
}

/** A delivery's receiver, as its health is kept. */
export function receiverKey(delivery: WebhookDelivery): string {
  return delivery.target.kind === 'operator' ? 'operator' : `${delivery.sessionId}/${delivery.target.webhookId}`;
}

/** A delivery's subscription as the log names it; `undefined` for the operator's endpoint. */
export function subscriptionOf(delivery: WebhookDelivery): FailureReport['subscription'] {
  return delivery.target.kind === 'subscription' ? { sessionId: delivery.sessionId, webhookId: delivery.target.webhookId } : undefined;
}
