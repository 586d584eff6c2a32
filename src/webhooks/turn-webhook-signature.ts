import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { TurnWebhookEvent } from './turn-webhook-event.js';
import { assertWebhookSecret } from './webhook-secret.js';

/**
 * The Standard Webhooks headers of one attempt: `webhook-id` (the same on
 * every retry: the receiver's idempotency key), `webhook-timestamp` (seconds,
 * of this attempt) and `webhook-signature` (`v1,` + HMAC-SHA256 of
 * `id.timestamp.body`).
 */
export function signTurnWebhook(secret: string, id: string, timestampMs: number, body: string): Record<string, string> {
  const timestamp = new Date(timestampMs);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestampMs / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, timestamp, body),
  };
}

/**
 * A webhook that did not verify: a missing header, a wrong signature, or a
 * timestamp more than five minutes off.
 *
 * @publicApi
 */
export class TurnWebhookVerificationError extends Error {
  override readonly name = 'TurnWebhookVerificationError';
}

/**
 * Verifies a turn webhook from its raw body and headers and returns the event; throws
 * {@link TurnWebhookVerificationError} for a bad delivery, `TypeError` for a bad secret (docs/webhooks.md). Needs no Nest.
 *
 * @publicApi
 */
export function verifyTurnWebhook(
  secret: string | undefined,
  rawBody: string | Buffer,
  headers: Record<string, string | string[] | undefined>,
): TurnWebhookEvent {
  assertWebhookSecret(secret, 'verifyTurnWebhook');
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string') flat[name.toLowerCase()] = value;
  }
  let event: unknown;
  try {
    event = new Webhook(secret).verify(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8'), flat);
  } catch (error) {
    throw new TurnWebhookVerificationError(error instanceof WebhookVerificationError ? error.message : 'Invalid webhook');
  }
  if (typeof event !== 'object' || event === null || typeof (event as TurnWebhookEvent).type !== 'string') {
    throw new TurnWebhookVerificationError('Not a turn webhook');
  }
  return event as TurnWebhookEvent;
}
