import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { LOG_LEVELS, type LogLevel } from '../logging/log-level.js';
import { AddressPolicy } from '../webhooks/address-policy.js';
import { isWebhookSecret } from '../webhooks/webhook-secret.js';

/**
 * Everything the daemon reads from its environment (or the same CLI flags).
 *
 * @publicApi
 */
export interface DaemonConfig {
  host: string;
  port: number;
  dataDir: string;
  workspaces: string[];
  agent: 'echo' | 'acp';
  agentCommand?: string;
  token?: string;
  promptDeadlineMs?: number;
  maxPendingPrompts: number;
  chatRecording: boolean;
  httpAdapter: 'express' | 'fastify';
  echoDelayMs: number;
  /** Live sessions per daemon; more → `503 too_many_sessions`. */
  maxSessions?: number;
  /** Open SSE streams per daemon, and per session; more → `503 too_many_streams`. */
  maxSseStreams?: number;
  maxSseStreamsPerSession?: number;
  /** Largest request body; larger → `413 payload_too_large`. */
  maxBodyBytes?: number;
  /** Largest prompt (text and data of its blocks, in UTF-16 code units); larger → `413 prompt_too_large`. */
  maxPromptChars?: number;
  /** Rewind, fork and load refuse a larger transcript (`413 transcript_too_large`). */
  maxTranscriptBytes?: number;
  /** Longest a turn request may be held, and held requests at once. */
  maxWaitMs?: number;
  maxWaiters?: number;
  /** Time a client has to send its request headers, and its whole request. */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** `Idempotency-Key`s remembered per daemon (oldest first out), and for how long. */
  maxIdempotencyKeys?: number;
  idempotencyTtlMs?: number;
  /** Turn webhooks: the operator's endpoint and its secret, the SSRF allow list, and delivery settings. */
  webhookUrl?: string;
  webhookSecret?: string;
  webhookAllow?: string[];
  webhookTimeoutMs?: number;
  webhookMaxAttempts?: number;
  webhookRetryBaseMs?: number;
  maxWebhooksPerSession?: number;
  /** Cluster mode: the shared directory (unset: a single daemon). */
  redisUrl?: string;
  /** This node's id in the cluster, and the URL other nodes forward to (default: the bound address). */
  nodeId?: string;
  nodeUrl?: string;
  /** Lease time of session ownership in a cluster. */
  leaseMs?: number;
  /** Time an owner has to start answering a forwarded request (plus the wait a held turn request asks for). */
  forwardTimeoutMs?: number;
  /** Log level (`TURNS_LOG`); unset: `TURNS_LOG` of the environment, else `info`. */
  log?: LogLevel;
  /** Prometheus metrics at `GET /metrics` (default on). */
  metrics?: boolean;
  /** Serve `GET /metrics` on this port of its own instead of the API's (same host, same token). */
  metricsPort?: number;
  /** Origins whose pages may call the daemon (exact, as browsers send them), or `['*']` (only with a token). Unset: none. */
  allowOrigins?: string[];
  /** Host names a request may address besides the loopback ones (unset on a non-loopback bind: any). */
  allowedHosts?: string[];
}

/** @publicApi */
export class ConfigError extends Error {}

/**
 * The command line itself is wrong (an unknown flag, a flag without its
 * value, a stray word): a usage error, not a bad setting.
 *
 * @publicApi
 */
export class DaemonUsageError extends ConfigError {}

const INT32_MAX = 2 ** 31 - 1;

/** Defaults of the resource limits (each a `TURNS_*` setting, listed in `/capabilities.limits`). */
export const LIMIT_DEFAULTS = {
  maxSessions: 1_000,
  maxSseStreams: 1_000,
  maxSseStreamsPerSession: 16,
  maxBodyBytes: 4 * 1024 * 1024,
  maxPromptChars: 1024 * 1024,
  maxTranscriptBytes: 256 * 1024 * 1024,
  maxWaitMs: 30_000,
  maxWaiters: 10_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  maxIdempotencyKeys: 10_000,
  idempotencyTtlMs: 86_400_000,
  webhookTimeoutMs: 10_000,
  webhookMaxAttempts: 8,
  webhookRetryBaseMs: 5_000,
  maxWebhooksPerSession: 8,
} as const;

/** Lease time of session ownership in a cluster, unless `TURNS_LEASE_MS` says otherwise. */
const DEFAULT_LEASE_MS = 10_000;
/** Time an owner has to start answering a forwarded request, unless `TURNS_FORWARD_TIMEOUT_MS` says otherwise. */
const DEFAULT_FORWARD_TIMEOUT_MS = 10_000;

/** `TURNS_DATA_DIR` ⇄ `--data-dir`: every variable has a flag of the same name. @publicApi */
export const DAEMON_VARIABLES = [
  'HOST',
  'PORT',
  'DATA_DIR',
  'WORKSPACES',
  'AGENT',
  'AGENT_COMMAND',
  'TOKEN',
  'PROMPT_DEADLINE_MS',
  'MAX_PENDING_PROMPTS',
  'CHAT_RECORDING',
  'HTTP_ADAPTER',
  'ECHO_DELAY_MS',
  'MAX_SESSIONS',
  'MAX_SSE_STREAMS',
  'MAX_SSE_STREAMS_PER_SESSION',
  'MAX_BODY_BYTES',
  'MAX_PROMPT_CHARS',
  'MAX_TRANSCRIPT_BYTES',
  'MAX_WAIT_MS',
  'MAX_WAITERS',
  'HEADERS_TIMEOUT_MS',
  'REQUEST_TIMEOUT_MS',
  'MAX_IDEMPOTENCY_KEYS',
  'IDEMPOTENCY_TTL_MS',
  'WEBHOOK_URL',
  'WEBHOOK_SECRET',
  'WEBHOOK_ALLOW',
  'WEBHOOK_TIMEOUT_MS',
  'WEBHOOK_MAX_ATTEMPTS',
  'WEBHOOK_RETRY_BASE_MS',
  'MAX_WEBHOOKS_PER_SESSION',
  'REDIS_URL',
  'NODE_ID',
  'NODE_URL',
  'LEASE_MS',
  'FORWARD_TIMEOUT_MS',
  'LOG',
  'METRICS',
  'METRICS_PORT',
  'ALLOW_ORIGINS',
  'ALLOWED_HOSTS',
] as const;
type Variable = (typeof DAEMON_VARIABLES)[number];

/** The command-line flag of a variable (`DATA_DIR` → `data-dir`). */
export const flagOf = (name: Variable) => name.toLowerCase().replaceAll('_', '-');

function integer(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return value;
}

function oneOf<T extends string>(name: string, raw: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
  return raw as T;
}

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

const NODE_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** A comma-separated list, each entry trimmed; `undefined` when unset. */
function list(raw: string | undefined): string[] | undefined {
  return raw
    ?.split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/** `TURNS_ALLOW_ORIGINS`: exact `http(s)://host[:port]` origins, normalized as a browser sends them, or `*`. */
function allowOrigins(raw: string | undefined, token: string | undefined): string[] | undefined {
  const entries = list(raw);
  if (!entries?.length) return undefined;
  if (entries.includes('*')) {
    if (!token) throw new ConfigError('TURNS_ALLOW_ORIGINS=* needs TURNS_TOKEN: any web page could drive the agent otherwise');
    return ['*'];
  }
  return entries.map((entry) => {
    const origin = /^https?:\/\/[^\s/?#@]+\/?$/i.test(entry) ? new URL(entry).origin : undefined;
    if (!origin || origin === 'null') {
      throw new ConfigError(`TURNS_ALLOW_ORIGINS entries must be origins such as http://localhost:3000, or * (got "${entry}")`);
    }
    return origin;
  });
}

/** `TURNS_ALLOWED_HOSTS`: host names or addresses (no scheme, no port), lower-cased. */
function allowedHosts(raw: string | undefined): string[] | undefined {
  const entries = list(raw);
  if (!entries?.length) return undefined;
  return entries.map((entry) => {
    if (!/^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])$/.test(entry)) {
      throw new ConfigError(`TURNS_ALLOWED_HOSTS entries must be host names or addresses without a port (got "${entry}")`);
    }
    return entry.toLowerCase();
  });
}

/** The cluster settings; all unset unless `TURNS_REDIS_URL` is. */
function clusterConfig(read: (name: Variable) => string | undefined): Partial<DaemonConfig> {
  const redisUrl = read('REDIS_URL');
  if (redisUrl === undefined) {
    const stray = (['NODE_ID', 'NODE_URL', 'LEASE_MS', 'FORWARD_TIMEOUT_MS'] as const).find((name) => read(name) !== undefined);
    if (stray) throw new ConfigError(`TURNS_${stray} needs TURNS_REDIS_URL (cluster mode)`);
    return {};
  }
  if (!/^rediss?:\/\/[^\s]+$/.test(redisUrl)) throw new ConfigError('TURNS_REDIS_URL must be a redis:// or rediss:// URL');
  const nodeId =
    read('NODE_ID') ??
    `${hostname()
      .replace(/[^A-Za-z0-9._:-]/g, '-')
      .slice(0, 48)}-${randomBytes(3).toString('hex')}`;
  if (!NODE_ID.test(nodeId)) throw new ConfigError(`TURNS_NODE_ID must match ${NODE_ID.source} (got "${nodeId}")`);
  const nodeUrl = read('NODE_URL');
  if (nodeUrl !== undefined && !/^https?:\/\/[^\s/]+$/.test(nodeUrl.replace(/\/$/, ''))) {
    throw new ConfigError(`TURNS_NODE_URL must be an http(s) origin such as http://10.0.0.5:4170 (got "${nodeUrl}")`);
  }
  return {
    redisUrl,
    nodeId,
    nodeUrl: nodeUrl?.replace(/\/$/, ''),
    leaseMs: integer('TURNS_LEASE_MS', read('LEASE_MS') ?? String(DEFAULT_LEASE_MS), 1_000, 600_000),
    forwardTimeoutMs: integer('TURNS_FORWARD_TIMEOUT_MS', read('FORWARD_TIMEOUT_MS') ?? String(DEFAULT_FORWARD_TIMEOUT_MS), 100, 600_000),
  };
}

/** The webhook settings; the secret is never echoed in an error. */
function webhookConfig(read: (name: Variable) => string | undefined): Partial<DaemonConfig> {
  const url = read('WEBHOOK_URL');
  const secret = read('WEBHOOK_SECRET');
  if (url !== undefined && !/^https?:\/\/[^\s]+$/.test(url)) throw new ConfigError('TURNS_WEBHOOK_URL must be an http(s) URL');
  if (url !== undefined && secret === undefined) throw new ConfigError('TURNS_WEBHOOK_URL needs TURNS_WEBHOOK_SECRET');
  if (secret !== undefined && !isWebhookSecret(secret)) {
    throw new ConfigError('TURNS_WEBHOOK_SECRET must be whsec_ followed by the base64 of at least 24 bytes');
  }
  const allow = (read('WEBHOOK_ALLOW') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of allow) {
    try {
      AddressPolicy.entry(entry);
    } catch {
      throw new ConfigError(`TURNS_WEBHOOK_ALLOW entries must be host names or CIDRs (got "${entry}")`);
    }
  }
  return { webhookUrl: url, webhookSecret: secret, ...(allow.length > 0 && { webhookAllow: allow }) };
}

/**
 * The daemon's flags (`--data-dir DIR`, …) by name; anything else on the
 * command line — an unknown flag, a missing value, a stray word — throws a
 * {@link DaemonUsageError}.
 *
 * @publicApi
 */
export function parseDaemonFlags(argv: string[]): Record<string, string | undefined> {
  try {
    return parseArgs({
      args: argv,
      options: Object.fromEntries(DAEMON_VARIABLES.map((name) => [flagOf(name), { type: 'string' as const }])),
      strict: true,
      allowPositionals: false,
    }).values as Record<string, string | undefined>;
  } catch (error) {
    throw new DaemonUsageError((error as Error).message);
  }
}

/**
 * Reads the configuration; CLI flags win over the environment. Every number is
 * range-checked; a bad value throws a {@link ConfigError} naming the variable,
 * and so does a non-loopback bind without a token.
 *
 * @publicApi
 */
export function loadDaemonConfig(env: NodeJS.ProcessEnv, argv: string[] = [], cwd = process.cwd()): DaemonConfig {
  const values = parseDaemonFlags(argv);
  const read = (name: Variable): string | undefined => {
    const value = values[flagOf(name)] ?? env[`TURNS_${name}`];
    return value === undefined || value === '' ? undefined : value;
  };
  const number = (name: Variable, fallback: number, min: number, max: number) =>
    integer(`TURNS_${name}`, read(name) ?? String(fallback), min, max);
  const optional = (name: Variable, min: number, max: number) =>
    read(name) === undefined ? undefined : integer(`TURNS_${name}`, read(name)!, min, max);
  const workspaces = list(read('WORKSPACES') ?? cwd)!;
  for (const path of workspaces) {
    if (!isAbsolute(path)) throw new ConfigError(`TURNS_WORKSPACES entries must be absolute paths (got "${path}")`);
  }
  const config: DaemonConfig = {
    host: read('HOST') ?? '127.0.0.1',
    port: number('PORT', 4170, 0, 65_535),
    dataDir: resolve(cwd, read('DATA_DIR') ?? '.turns-data'),
    workspaces: workspaces.map((p) => resolve(p)),
    agent: oneOf('TURNS_AGENT', read('AGENT') ?? 'echo', ['echo', 'acp'] as const),
    agentCommand: read('AGENT_COMMAND'),
    token: read('TOKEN'),
    // Node's timers hold at most 2^31-1 ms; a longer deadline would fire at once.
    promptDeadlineMs: optional('PROMPT_DEADLINE_MS', 1, INT32_MAX),
    maxPendingPrompts: number('MAX_PENDING_PROMPTS', 5, 1, 10_000),
    chatRecording: oneOf('TURNS_CHAT_RECORDING', read('CHAT_RECORDING') ?? 'true', ['true', 'false'] as const) === 'true',
    httpAdapter: oneOf('TURNS_HTTP_ADAPTER', read('HTTP_ADAPTER') ?? 'express', ['express', 'fastify'] as const),
    echoDelayMs: number('ECHO_DELAY_MS', 0, 0, INT32_MAX),
    maxSessions: number('MAX_SESSIONS', LIMIT_DEFAULTS.maxSessions, 1, 1_000_000),
    maxSseStreams: number('MAX_SSE_STREAMS', LIMIT_DEFAULTS.maxSseStreams, 1, 1_000_000),
    maxSseStreamsPerSession: number('MAX_SSE_STREAMS_PER_SESSION', LIMIT_DEFAULTS.maxSseStreamsPerSession, 1, 1_000_000),
    maxBodyBytes: number('MAX_BODY_BYTES', LIMIT_DEFAULTS.maxBodyBytes, 1_024, 1024 ** 3),
    maxPromptChars: number('MAX_PROMPT_CHARS', LIMIT_DEFAULTS.maxPromptChars, 1, 1024 ** 3),
    maxTranscriptBytes: number('MAX_TRANSCRIPT_BYTES', LIMIT_DEFAULTS.maxTranscriptBytes, 1_024, Number.MAX_SAFE_INTEGER),
    maxWaitMs: number('MAX_WAIT_MS', LIMIT_DEFAULTS.maxWaitMs, 0, 300_000),
    maxWaiters: number('MAX_WAITERS', LIMIT_DEFAULTS.maxWaiters, 1, 1_000_000),
    headersTimeoutMs: number('HEADERS_TIMEOUT_MS', LIMIT_DEFAULTS.headersTimeoutMs, 1, INT32_MAX),
    requestTimeoutMs: number('REQUEST_TIMEOUT_MS', LIMIT_DEFAULTS.requestTimeoutMs, 1, INT32_MAX),
    maxIdempotencyKeys: number('MAX_IDEMPOTENCY_KEYS', LIMIT_DEFAULTS.maxIdempotencyKeys, 1, 10_000_000),
    idempotencyTtlMs: number('IDEMPOTENCY_TTL_MS', LIMIT_DEFAULTS.idempotencyTtlMs, 1_000, 30 * 86_400_000),
    webhookTimeoutMs: number('WEBHOOK_TIMEOUT_MS', LIMIT_DEFAULTS.webhookTimeoutMs, 100, 600_000),
    webhookMaxAttempts: number('WEBHOOK_MAX_ATTEMPTS', LIMIT_DEFAULTS.webhookMaxAttempts, 1, 100),
    webhookRetryBaseMs: number('WEBHOOK_RETRY_BASE_MS', LIMIT_DEFAULTS.webhookRetryBaseMs, 1, 600_000),
    maxWebhooksPerSession: number('MAX_WEBHOOKS_PER_SESSION', LIMIT_DEFAULTS.maxWebhooksPerSession, 1, 100),
    ...webhookConfig(read),
    ...clusterConfig(read),
    log: oneOf('TURNS_LOG', read('LOG') ?? 'info', LOG_LEVELS),
    metrics: oneOf('TURNS_METRICS', read('METRICS') ?? 'true', ['true', 'false'] as const) === 'true',
    metricsPort: optional('METRICS_PORT', 0, 65_535),
    allowOrigins: allowOrigins(read('ALLOW_ORIGINS'), read('TOKEN')),
    allowedHosts: allowedHosts(read('ALLOWED_HOSTS')),
  };
  if (config.agent === 'acp' && !config.agentCommand) throw new ConfigError('TURNS_AGENT=acp needs TURNS_AGENT_COMMAND');
  if (config.metricsPort !== undefined && config.metricsPort !== 0 && config.metricsPort === config.port) {
    throw new ConfigError('TURNS_METRICS_PORT must differ from TURNS_PORT');
  }
  if (config.metricsPort !== undefined && !config.metrics) throw new ConfigError('TURNS_METRICS_PORT needs TURNS_METRICS=true');
  if (config.headersTimeoutMs! > config.requestTimeoutMs!)
    throw new ConfigError('TURNS_HEADERS_TIMEOUT_MS must not exceed TURNS_REQUEST_TIMEOUT_MS');
  if (config.redisUrl && !config.nodeUrl && (config.host === '0.0.0.0' || config.host === '::')) {
    throw new ConfigError(`TURNS_HOST=${config.host} is not an address other nodes can use: set TURNS_NODE_URL`);
  }
  if (!isLoopback(config.host) && !config.token) {
    throw new ConfigError(`refusing to bind ${config.host} without TURNS_TOKEN: only loopback addresses may run unauthenticated`);
  }
  return config;
}
