import { logEntryOf, type DeliveryLogEntry, type WebhookDelivery } from './webhook-delivery.js';

/**
 * The last deliveries of each subscription, in memory, for
 * `GET …/webhooks/:webhookId/deliveries`: bounded per subscription (the
 * oldest row goes) and in subscriptions (the oldest log goes).
 */
export class DeliveryLog {
  private readonly logs = new Map<string, Map<string, DeliveryLogEntry>>();

  constructor(
    private readonly rowsPerSubscription = 50,
    private readonly subscriptions = 10_000,
  ) {}

  /** Records the delivery's state (an operator endpoint's deliveries have no log). */
  record(delivery: WebhookDelivery, state: DeliveryLogEntry['state']): void {
    if (delivery.target.kind !== 'subscription') return;
    const key = `${delivery.sessionId}/${delivery.target.webhookId}`;
    let rows = this.logs.get(key);
    if (!rows) {
      if (this.logs.size >= this.subscriptions) this.logs.delete(this.logs.keys().next().value as string);
      rows = new Map();
      this.logs.set(key, rows);
    }
    rows.set(delivery.deliveryId, logEntryOf(delivery, state));
    if (rows.size > this.rowsPerSubscription) rows.delete(rows.keys().next().value as string);
  }

  /** The last deliveries of a subscription, oldest first. */
  of(sessionId: string, webhookId: string): DeliveryLogEntry[] {
    return [...(this.logs.get(`${sessionId}/${webhookId}`)?.values() ?? [])];
  }
}
