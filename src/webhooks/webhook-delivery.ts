import { createHash } from 'node:crypto';
import type { TurnWebhookEventType } from './turn-webhook-event.js';

/** Where a delivery goes: a session's subscription (read from its file at each attempt) or the operator's endpoint. */
export type DeliveryTarget = { kind: 'subscription'; file: string; webhookId: string } | { kind: 'operator' };

/**
 * A delivery's id, and so its `webhook-id`: one per prompt, event type and
 * receiver, so an event queued again after a crash is the same message to the
 * receiver, which dedupes by it (Standard Webhooks).
 */
export function deliveryIdOf(promptId: string, type: TurnWebhookEventType, target: DeliveryTarget): string {
  const receiver = target.kind === 'operator' ? 'operator' : `subscription ${target.webhookId}`;
  const hex = createHash('sha256').update(`${promptId}\n${type}\n${receiver}`).digest('hex');
  return `msg_${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** One event for one receiver, as the outbox keeps it until it is delivered or given up. */
export interface WebhookDelivery {
  /** Also its `webhook-id`: the same on every attempt. */
  deliveryId: string;
  target: DeliveryTarget;
  sessionId: string;
  promptId: string;
  type: TurnWebhookEventType;
  /** The event JSON, sent (and signed) as is on every attempt. */
  body: string;
  attempts: number;
  nextAttemptAt: number;
  createdAt: number;
  lastStatus?: number;
  lastError?: string;
}

/** One event to send to several receivers, as it was made. */
export interface OutgoingEvent {
  /** What each delivery's id derives from, with the type and the receiver: the prompt's id, or a permission request's. */
  key: string;
  sessionId: string;
  promptId: string;
  type: TurnWebhookEventType;
  /** The event JSON. */
  body: string;
  /** When it was made (epoch ms): its first attempt is due then. */
  at: number;
}

/** The event's deliveries, one to each receiver, before their first attempt. */
export function deliveriesOf(event: OutgoingEvent, targets: readonly DeliveryTarget[]): WebhookDelivery[] {
  const { key, sessionId, promptId, type, body, at } = event;
  return targets.map((target) => ({
    deliveryId: deliveryIdOf(key, type, target),
    target,
    sessionId,
    promptId,
    type,
    body,
    attempts: 0,
    nextAttemptAt: at,
    createdAt: at,
  }));
}

/**
 * One row of `GET /session/:id/webhooks/:webhookId/deliveries`.
 *
 * @publicApi
 */
export interface DeliveryLogEntry {
  deliveryId: string;
  type: TurnWebhookEventType;
  promptId: string;
  attempts: number;
  state: 'pending' | 'delivered' | 'failed';
  lastStatus?: number;
  lastError?: string;
  nextAttemptAt?: number;
}

export function logEntryOf(delivery: WebhookDelivery, state: DeliveryLogEntry['state']): DeliveryLogEntry {
  const { deliveryId, type, promptId, attempts, lastStatus, lastError, nextAttemptAt } = delivery;
  return {
    deliveryId,
    type,
    promptId,
    attempts,
    state,
    ...(lastStatus !== undefined && { lastStatus }),
    ...(lastError !== undefined && { lastError }),
    ...(state === 'pending' && { nextAttemptAt }),
  };
}
