import type { TurnWebhookEventType } from './turn-webhook-event.js';

/** One subscription as it is kept (with its secret and token) in the session's transcript directory. */
export interface StoredWebhook {
  webhookId: string;
  url: string;
  events: TurnWebhookEventType[];
  createdAt: number;
  secret: string;
  token?: string;
  /** Set when the receiver answered `410 Gone`: nothing more is sent. */
  disabledAt?: number;
}

/** A subscription as `GET /session/:id/webhooks` lists it: never its secret or token. */
export interface ListedWebhook {
  webhookId: string;
  url: string;
  events: TurnWebhookEventType[];
  createdAt: number;
  hasToken?: true;
  disabledAt?: number;
}

export function listedWebhook(stored: StoredWebhook): ListedWebhook {
  const { webhookId, url, events, createdAt, token, disabledAt } = stored;
  return {
    webhookId,
    url,
    events,
    createdAt,
    ...(token !== undefined && { hasToken: true as const }),
    ...(disabledAt !== undefined && { disabledAt }),
  };
}

/** The event types a subscription's `events` asks for (`turn.*`: all of `all`; an opt-in one only by name). */
export function wantedEvents(
  requested: readonly string[] | undefined,
  all: readonly TurnWebhookEventType[],
  fallback: readonly TurnWebhookEventType[],
  optIn: readonly TurnWebhookEventType[] = [],
) {
  if (requested === undefined) return [...fallback];
  const named = optIn.filter((type) => requested.includes(type));
  if (requested.includes('turn.*')) return [...all, ...named];
  return [...all.filter((type) => requested.includes(type)), ...named];
}
