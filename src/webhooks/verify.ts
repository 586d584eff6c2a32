// nest-turn-status/webhooks/verify: the receiving end of turn webhooks with no
// Nest — a serverless function or a CI job verifies a delivery with this alone
// (the `standardwebhooks` dependency, and no peer, is all it loads).

export { verifyTurnWebhook, TurnWebhookVerificationError } from './turn-webhook-signature.js';
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
export type {
  TurnStatus,
  RunningTurnStatus,
  CompletedTurnStatus,
  CancelledTurnStatus,
  ErrorTurnStatus,
  SettledTurnStatus,
} from '../turns/turn-status.js';
export type { TurnError } from '../turns/rules/normalize-turn-error.js';
