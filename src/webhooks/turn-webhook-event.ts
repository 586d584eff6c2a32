import type { TurnStatus } from '../turns/turn-status.js';

/**
 * Event types a subscription can ask for; `turn.*` stands for all four.
 *
 * @publicApi
 */
export const TURN_WEBHOOK_EVENT_TYPES = ['turn.started', 'turn.completed', 'turn.cancelled', 'turn.error'] as const;

/** @publicApi */
export type TurnWebhookEventType = (typeof TURN_WEBHOOK_EVENT_TYPES)[number];

/** What a subscription gets without `events`: the terminal ones. */
export const DEFAULT_TURN_WEBHOOK_EVENTS: readonly TurnWebhookEventType[] = ['turn.completed', 'turn.cancelled', 'turn.error'];

/**
 * The body of a turn webhook: `data` is the turn status exactly as
 * `GET /session/:id/turns/:promptId` answered when it was sent (it carries
 * `sessionId`); `timestamp` is epoch ms, like every time on this wire.
 *
 * @publicApi
 */
export interface TurnWebhookEvent {
  type: TurnWebhookEventType;
  timestamp: number;
  data: TurnStatus;
}

/** The event type of a settled or started turn status. */
export function eventTypeOf(state: TurnStatus['state']): TurnWebhookEventType | undefined {
  switch (state) {
    case 'running':
      return 'turn.started';
    case 'completed':
      return 'turn.completed';
    case 'cancelled':
      return 'turn.cancelled';
    case 'error':
      return 'turn.error';
    default:
      return undefined;
  }
}
