// nest-turn-status/webhooks: for hosts that receive turn webhooks (a verifier and a Nest guard),
// and the webhook options of the runtime that sends them.

export { verifyTurnWebhook, TurnWebhookVerificationError } from './turn-webhook-signature.js';
export { TurnWebhookGuard, TurnWebhook } from './turn-webhook.guard.js';
export {
  TURN_WEBHOOK_EVENT_TYPES,
  OPT_IN_TURN_WEBHOOK_EVENT_TYPES,
  type TurnWebhookEvent,
  type TurnWebhookEventType,
  type TurnStartedWebhookEvent,
  type TurnCompletedWebhookEvent,
  type TurnCancelledWebhookEvent,
  type TurnErrorWebhookEvent,
  type TurnPermissionRequestedWebhookEvent,
} from './turn-webhook-event.js';
export type { DeliveryLogEntry } from './webhook-delivery.js';
export type { WebhookOptions } from './webhooks.settings.js';
export type { HostResolver, ResolvedAddress } from './host-resolver.js';
