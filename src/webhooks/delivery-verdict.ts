import { retryAfterFloorMs, retryAfterMs, retryDelayMs } from './retry-schedule.js';
import type { FailureReport } from './receiver-health.js';
import type { AttemptResult } from './webhook-sender.js';
import type { WebhookSettings } from './webhooks.settings.js';
import { ForbiddenWebhookUrl } from './webhook-url-guard.js';

/** What an attempt comes to, and where the delivery goes next. */
export type Verdict = { kind: 'delivered' } | { kind: 'failed'; disable?: boolean } | { kind: 'retry'; delayMs: number };

/**
 * The rule after an attempt: 2xx delivered, 410 disables, else a retry until
 * the last attempt — after the receiver's `Retry-After` on 429/503 (no sooner
 * than {@link retryAfterFloorMs}), else the jittered backoff.
 */
export function verdictOf(
  result: AttemptResult | undefined,
  attempts: number,
  settings: Pick<WebhookSettings, 'maxAttempts' | 'retryBaseMs'>,
  now: number,
  random: () => number = Math.random,
): Verdict {
  if (result && result.status >= 200 && result.status < 300) return { kind: 'delivered' };
  if (result?.status === 410) return { kind: 'failed', disable: true };
  if (attempts >= settings.maxAttempts) return { kind: 'failed' };
  const hinted = result && (result.status === 429 || result.status === 503) ? retryAfterMs(result.retryAfter, now) : undefined;
  if (hinted === undefined) return { kind: 'retry', delayMs: retryDelayMs(attempts, settings.retryBaseMs, random) };
  return { kind: 'retry', delayMs: Math.max(hinted, retryAfterFloorMs(attempts, settings.retryBaseMs)) };
}

/** Whether the verdict disables the subscription (a 410). */
export function disables(verdict: Verdict): boolean {
  return verdict.kind === 'failed' && verdict.disable === true;
}

/** What the failure log line says happens next. */
export function nextStepOf(verdict: Verdict): FailureReport['next'] {
  if (verdict.kind === 'retry') return 'retry';
  return disables(verdict) ? 'disabled' : 'given_up';
}

/**
 * Why an attempt got no answer, as the delivery log keeps it (never the URL,
 * which may carry a secret path): `error` for `lastError`, `reason` for the
 * log line (the SSRF guard's reason, when it refused the address).
 */
export function attemptFailureOf(error: unknown): { error: string; reason: string } {
  if (error instanceof ForbiddenWebhookUrl) return { error: 'webhook_url_forbidden', reason: `webhook_url_forbidden (${error.message})` };
  const code = errorCode(error);
  return { error: code, reason: code };
}

/** A connection failure as a short code. */
function errorCode(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (typeof code === 'string' && /^[A-Z_]{2,40}$/.test(code)) return code;
  return (error as Error)?.message === 'timeout' ? 'timeout' : 'connection_failed';
}
