import { join } from 'node:path';
import { AddressPolicy } from './address-policy.js';
import { systemResolver, type HostResolver } from './host-resolver.js';
import { valuesOf } from '../common/settings/setting.js';
import { TURN_WEBHOOK_SETTINGS } from './webhooks.settings.js';

/**
 * Webhook options of the runtime (docs/webhooks.md; each a `TURNS_WEBHOOK_*` setting of the daemon).
 *
 * @publicApi
 */
export interface WebhookOptions {
  /** The operator's endpoint: every session's terminal events. */
  url?: string;
  /** Its signing secret (`whsec_…`), required with `url`. */
  secret?: string;
  /** Hosts and CIDRs the SSRF guard lets through although private, loopback or link-local. @default none */
  allow?: string[];
  /** An attempt succeeds with a 2xx within this time. @default `TURNS_WEBHOOK_TIMEOUT_MS`'s */
  timeoutMs?: number;
  /** Attempts per delivery. @default `TURNS_WEBHOOK_MAX_ATTEMPTS`'s */
  maxAttempts?: number;
  /** Scales the retry schedule (5 s, 30 s, 2 min, … 6 h at 5000). @default `TURNS_WEBHOOK_RETRY_BASE_MS`'s */
  retryBaseMs?: number;
  /** Subscriptions per session; more → `409 too_many_webhooks`. @default `TURNS_MAX_WEBHOOKS_PER_SESSION`'s */
  maxPerSession?: number;
  /** Where pending deliveries are kept. @default `<dataDir>/webhooks/outbox` */
  outboxDir?: string;
  /** DNS for webhook hosts. @default the system resolver */
  resolver?: HostResolver;
}

/** The effective webhook settings. */
export interface WebhookSettings {
  operator?: { url: string; secret: string };
  policy: AddressPolicy;
  timeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  maxPerSession: number;
  outboxDir: string;
  resolver: HostResolver;
  /** Attempts in flight at once. */
  maxConcurrent: number;
  /** Pending deliveries scheduled in memory; the rest wait on disk for room. */
  maxScheduled: number;
}

export const WEBHOOK_SETTINGS = Symbol('WEBHOOK_SETTINGS');

const DEFAULTS = valuesOf(TURN_WEBHOOK_SETTINGS, {});

export function webhookSettings(options: WebhookOptions = {}, dataDir: string): WebhookSettings {
  if (options.url !== undefined && options.secret === undefined) throw new Error('a webhook url needs its secret');
  return {
    ...(options.url !== undefined && { operator: { url: options.url, secret: options.secret! } }),
    policy: new AddressPolicy(options.allow ?? []),
    timeoutMs: options.timeoutMs ?? DEFAULTS.webhookTimeoutMs,
    maxAttempts: options.maxAttempts ?? DEFAULTS.webhookMaxAttempts,
    retryBaseMs: options.retryBaseMs ?? DEFAULTS.webhookRetryBaseMs,
    maxPerSession: options.maxPerSession ?? DEFAULTS.maxWebhooksPerSession,
    outboxDir: options.outboxDir ?? join(dataDir, 'webhooks', 'outbox'),
    resolver: options.resolver ?? systemResolver,
    maxConcurrent: 16,
    maxScheduled: 1_000,
  };
}
