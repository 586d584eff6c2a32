import type { CancelledTurnStatus, CompletedTurnStatus, ErrorTurnStatus, RunningTurnStatus, TurnStatus } from '../turns/turn-status.js';

/**
 * Event types a subscription can ask for; `turn.*` stands for all four.
 *
 * @publicApi
 */
export const TURN_WEBHOOK_EVENT_TYPES = ['turn.started', 'turn.completed', 'turn.cancelled', 'turn.error'] as const;

/**
 * Event types a subscription gets only by naming them in `events` (`turn.*` does not include them).
 *
 * @publicApi
 */
export const OPT_IN_TURN_WEBHOOK_EVENT_TYPES = ['turn.permission_requested'] as const;

/** @publicApi */
export type TurnWebhookEventType = (typeof TURN_WEBHOOK_EVENT_TYPES)[number] | (typeof OPT_IN_TURN_WEBHOOK_EVENT_TYPES)[number];

/** What a subscription gets without `events`: the terminal ones. */
export const DEFAULT_TURN_WEBHOOK_EVENTS: readonly TurnWebhookEventType[] = ['turn.completed', 'turn.cancelled', 'turn.error'];

/** One event type with the turn status it carries. */
interface TurnWebhookEventOf<T extends TurnWebhookEventType, S extends TurnStatus> {
  type: T;
  /** Epoch ms, like every time on this wire. */
  timestamp: number;
  /** The turn status exactly as `GET /session/:id/turns/:promptId` answered when it was sent (it carries `sessionId`). */
  data: S;
}

/** @publicApi */
export type TurnStartedWebhookEvent = TurnWebhookEventOf<'turn.started', RunningTurnStatus>;
/** @publicApi */
export type TurnCompletedWebhookEvent = TurnWebhookEventOf<'turn.completed', CompletedTurnStatus>;
/** @publicApi */
export type TurnCancelledWebhookEvent = TurnWebhookEventOf<'turn.cancelled', CancelledTurnStatus>;
/** @publicApi */
export type TurnErrorWebhookEvent = TurnWebhookEventOf<'turn.error', ErrorTurnStatus>;

/**
 * The agent waits on approval of a tool call (docs/permissions.md): `data` is the
 * running turn's status, its `pendingInteractions` holding the request
 * `requestId` names; answer it at `POST /session/:id/permission/:requestId`.
 *
 * @publicApi
 */
export interface TurnPermissionRequestedWebhookEvent {
  type: 'turn.permission_requested';
  timestamp: number;
  requestId: string;
  data: RunningTurnStatus;
}

/**
 * The body of a turn webhook: a union on `type`, so `event.type ===
 * 'turn.completed'` narrows `event.data` to a {@link CompletedTurnStatus}.
 *
 * @publicApi
 */
export type TurnWebhookEvent =
  | TurnStartedWebhookEvent
  | TurnCompletedWebhookEvent
  | TurnCancelledWebhookEvent
  | TurnErrorWebhookEvent
  | TurnPermissionRequestedWebhookEvent;

/** The event a turn status is sent as; none for a status no event carries (idle, queued). */
export function turnWebhookEventOf(data: TurnStatus, timestamp: number): TurnWebhookEvent | undefined {
  switch (data.state) {
    case 'running':
      return { type: 'turn.started', timestamp, data };
    case 'completed':
      return { type: 'turn.completed', timestamp, data };
    case 'cancelled':
      return { type: 'turn.cancelled', timestamp, data };
    case 'error':
      return { type: 'turn.error', timestamp, data };
    default:
      return undefined;
  }
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
