import { join } from 'node:path';
import { checked, integer, list } from '../common/settings/readers.js';
import { ConfigError, valuesOf, type SettingOptions, type Settings } from '../common/settings/setting.js';
import { AddressPolicy } from './address-policy.js';
import { systemResolver, type HostResolver } from './host-resolver.js';
import { isWebhookSecret } from './webhook-secret.js';

const allowList = list((entry, variable) => {
  try {
    AddressPolicy.entry(entry);
  } catch {
    throw new ConfigError(`${variable} entries must be host names or CIDRs (got "${entry}")`);
  }
  return entry;
});

/** Turn webhooks (docs/webhooks.md): `TURNS_WEBHOOK_*` settings of the daemon, {@link WebhookOptions} of the runtime. */
export const TURN_WEBHOOK_SETTINGS = {
  webhookUrl: {
    name: 'WEBHOOK_URL',
    ...checked((raw) => /^https?:\/\/[^\s]+$/.test(raw), 'must be an http(s) URL'),
    needs: { name: 'WEBHOOK_SECRET' },
    doc: "the operator's endpoint: every session's terminal events (needs `TURNS_WEBHOOK_SECRET`)",
  },
  // The secret is never echoed in an error.
  webhookSecret: {
    name: 'WEBHOOK_SECRET',
    ...checked(isWebhookSecret, 'must be whsec_ followed by the base64 of at least 24 bytes'),
    doc: 'its signing secret, `whsec_` + base64 of at least 24 bytes; never logged',
  },
  webhookAllow: {
    name: 'WEBHOOK_ALLOW',
    ...allowList,
    doc: 'comma-separated hosts and CIDRs the SSRF guard lets through (e.g. `127.0.0.1,10.0.0.0/8,hooks.internal`)',
  },
  webhookTimeoutMs: {
    name: 'WEBHOOK_TIMEOUT_MS',
    ...integer(100, 600_000),
    default: 10_000,
    limit: 'webhookTimeoutMs',
    doc: 'an attempt succeeds with a 2xx within this time',
  },
  webhookMaxAttempts: {
    name: 'WEBHOOK_MAX_ATTEMPTS',
    ...integer(1, 100),
    default: 8,
    limit: 'webhookMaxAttempts',
    doc: 'attempts per delivery, then `failed`',
  },
  webhookRetryBaseMs: {
    name: 'WEBHOOK_RETRY_BASE_MS',
    ...integer(1, 600_000),
    default: 5_000,
    limit: 'webhookRetryBaseMs',
    doc: 'scales the retry schedule (5 s … 6 h at 5000; tests use a few ms)',
  },
  maxWebhooksPerSession: {
    name: 'MAX_WEBHOOKS_PER_SESSION',
    ...integer(1, 100),
    default: 8,
    limit: 'maxWebhooksPerSession',
    doc: 'subscriptions per session; beyond → `409 too_many_webhooks`',
  },
} as const satisfies Settings;

type WebhookValues = SettingOptions<typeof TURN_WEBHOOK_SETTINGS>;

/** The runtime's webhook options out of the settings' values (its option names are shorter; defaults are its own). */
export function webhookOptionsOf(values: WebhookValues): WebhookOptions {
  return {
    url: values.webhookUrl,
    secret: values.webhookSecret,
    allow: values.webhookAllow,
    timeoutMs: values.webhookTimeoutMs,
    maxAttempts: values.webhookMaxAttempts,
    retryBaseMs: values.webhookRetryBaseMs,
    maxPerSession: values.maxWebhooksPerSession,
  };
}

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

/** Injects the effective {@link WebhookSettings} (the runtime builds them with `webhookSettings`). */
export const WEBHOOK_SETTINGS = Symbol('WEBHOOK_SETTINGS');

const DEFAULTS = valuesOf(TURN_WEBHOOK_SETTINGS, {});

/** The effective settings out of the runtime's options: defaults applied, the outbox under `dataDir` unless named. */
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
