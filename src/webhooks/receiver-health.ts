/** What an attempt changed in a receiver's health: the log says so once per change, never once per retry. */
export type HealthChange = 'failing' | 'recovered';

/**
 * Whether each receiver (a subscription, or the operator's endpoint) is
 * failing: its last attempt got no 2xx. Only failing receivers are kept,
 * bounded; one forgotten past the bound is reported again on its next failure.
 */
export class ReceiverHealth {
  private readonly failing = new Set<string>();

  constructor(private readonly maxFailing = 10_000) {}

  /** Records an attempt's outcome; returns the change it made, if any. */
  note(receiver: string, delivered: boolean): HealthChange | undefined {
    if (delivered) return this.failing.delete(receiver) ? 'recovered' : undefined;
    if (this.failing.has(receiver)) return undefined;
    if (this.failing.size >= this.maxFailing) this.failing.delete(this.failing.values().next().value as string);
    this.failing.add(receiver);
    return 'failing';
  }

  /** Forgets a receiver that is gone (removed or disabled): no recovery to report. */
  forget(receiver: string): void {
    this.failing.delete(receiver);
  }
}

/** What the log line of a failing receiver says: who, why, and what happens next (never the URL, which may carry a secret path). */
export interface FailureReport {
  /** `undefined` for the operator's endpoint. */
  subscription?: { sessionId: string; webhookId: string };
  /** The receiver's answer, if it gave one. */
  status?: number;
  /** Why there was no answer: a connection error code, `timeout`, or the SSRF guard's reason. */
  error?: string;
  attempts: number;
  maxAttempts: number;
  /** What the dispatcher does with this delivery now. */
  next: 'retry' | 'given_up' | 'disabled';
}

/** The receiver's name in the log. */
export function receiverName(subscription: FailureReport['subscription']): string {
  return subscription ? `webhook ${subscription.webhookId} of session ${subscription.sessionId}` : "the operator's webhook endpoint";
}

/** The `warn` line for a receiver that turned failing. */
export function failureLine(report: FailureReport): string {
  const cause = report.status !== undefined ? `HTTP ${report.status}` : (report.error ?? 'no answer');
  // A 401/403 from a receiver is nearly always a secret (or token) it does not share with us.
  const hint = report.status === 401 || report.status === 403 ? ' (the receiver refused the signature or the token: check its secret)' : '';
  const next =
    report.next === 'disabled'
      ? 'the subscription is disabled'
      : report.next === 'given_up'
        ? `delivery given up after ${report.attempts} attempts`
        : `retrying (attempt ${report.attempts} of ${report.maxAttempts}); logged again when it recovers`;
  return `${receiverName(report.subscription)} is failing: ${cause}${hint}; ${next}`;
}
