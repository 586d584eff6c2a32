import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { LOG_LEVELS } from '../logging/log-level.js';
import { AddressPolicy } from '../webhooks/address-policy.js';
import { isWebhookSecret } from '../webhooks/webhook-secret.js';

/** @publicApi */
export class ConfigError extends Error {}

/**
 * One setting of the daemon: its variable (`TURNS_<name>`, and the flag
 * `--<name in kebab case>`), how a value is read and checked, its default and
 * what it means. A default is a raw value, read like one an operator gives.
 */
export interface DaemonSetting<T> {
  /** The variable without its `TURNS_` prefix. */
  name: string;
  doc: string;
  /** Reads a set value; throws a {@link ConfigError} naming `variable`. */
  read(raw: string, variable: string, cwd: string): T;
  default?: string | ((cwd: string) => string);
  /** How help and the README show a default that is not a plain value. */
  defaultText?: string;
  /** Another variable this one is meaningless without; unset then, the setting is left out (its default too). */
  needs?: { name: string; why?: string };
  /** Integer settings: the range, shown in help. */
  range?: readonly [number, number];
}

// Node's timers hold at most 2^31-1 ms; a longer time would fire at once.
const INT32_MAX = 2 ** 31 - 1;

type Reader<T> = Pick<DaemonSetting<T>, 'read' | 'range'>;

const text: Reader<string> = { read: (raw) => raw };

function integer(min: number, max: number): Reader<number> {
  return {
    range: [min, max],
    read(raw, variable) {
      const value = Number(raw);
      if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
        throw new ConfigError(`${variable} must be an integer from ${min} to ${max} (got "${raw}")`);
      }
      return value;
    },
  };
}

function oneOf<const T extends string>(allowed: readonly T[]): Reader<T> {
  return {
    read(raw, variable) {
      if (!(allowed as readonly string[]).includes(raw))
        throw new ConfigError(`${variable} must be one of ${allowed.join(', ')} (got "${raw}")`);
      return raw as T;
    },
  };
}

const flag: Reader<boolean> = { read: (raw, variable) => oneOf(['true', 'false']).read(raw, variable, '') === 'true' };

/** A comma-separated list, each entry trimmed and checked; `undefined` when it has no entry. */
function list(entry: (raw: string, variable: string, cwd: string) => string): Reader<string[] | undefined> {
  return {
    read(raw, variable, cwd) {
      const entries = raw
        .split(',')
        .map((value) => value.trim())
        .filter(Boolean);
      return entries.length ? entries.map((value) => entry(value, variable, cwd)) : undefined;
    },
  };
}

/** A value `valid` accepts, else `<variable> <message>` (`%s`: the value; left out for a secret). */
function checked(valid: (raw: string) => boolean, message: string, normalize = (raw: string) => raw): Reader<string> {
  return {
    read(raw, variable) {
      if (!valid(normalize(raw))) throw new ConfigError(`${variable} ${message.replace('%s', raw)}`);
      return normalize(raw);
    },
  };
}

const NODE_ID = /^[A-Za-z0-9._:-]{1,64}$/;

const workspaceList = list((path, variable) => {
  if (!isAbsolute(path)) throw new ConfigError(`${variable} entries must be absolute paths (got "${path}")`);
  return resolve(path);
});

/** `TURNS_ALLOW_ORIGINS` entries: exact `http(s)://host[:port]` origins, normalized as a browser sends them, or `*`. */
const originList = list((entry, variable) => {
  if (entry === '*') return entry;
  const origin = /^https?:\/\/[^\s/?#@]+\/?$/i.test(entry) ? new URL(entry).origin : undefined;
  if (!origin || origin === 'null')
    throw new ConfigError(`${variable} entries must be origins such as http://localhost:3000, or * (got "${entry}")`);
  return origin;
});

const hostList = list((entry, variable) => {
  if (!/^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])$/.test(entry)) {
    throw new ConfigError(`${variable} entries must be host names or addresses without a port (got "${entry}")`);
  }
  return entry.toLowerCase();
});

const webhookAllowList = list((entry, variable) => {
  try {
    AddressPolicy.entry(entry);
  } catch {
    throw new ConfigError(`${variable} entries must be host names or CIDRs (got "${entry}")`);
  }
  return entry;
});

const randomNodeId = () =>
  `${hostname()
    .replace(/[^A-Za-z0-9._:-]/g, '-')
    .slice(0, 48)}-${randomBytes(3).toString('hex')}`;

const CLUSTER = { name: 'REDIS_URL', why: 'cluster mode' };
const MS = INT32_MAX;

/**
 * Every setting of the daemon, declared once: read by {@link loadDaemonConfig},
 * turned into the `serve` command's flags, and listed in docs/configuration.md (a spec holds the page to it).
 */
export const DAEMON_SETTINGS = {
  host: { name: 'HOST', ...text, default: '127.0.0.1', doc: 'bind address; a non-loopback one needs TURNS_TOKEN' },
  port: { name: 'PORT', ...integer(0, 65_535), default: '4170', doc: 'port' },
  dataDir: {
    name: 'DATA_DIR',
    read: (raw: string, _: string, cwd: string) => resolve(cwd, raw),
    default: './.turns-data',
    doc: 'transcripts: <dataDir>/<workspace>/chats/<sessionId>.jsonl',
  },
  workspaces: {
    name: 'WORKSPACES',
    read: (raw: string, variable: string, cwd: string) => workspaceList.read(raw, variable, cwd) ?? [cwd],
    default: (cwd: string) => cwd,
    defaultText: 'current directory',
    doc: 'comma-separated absolute paths; the first is primary',
  },
  agent: { name: 'AGENT', ...oneOf(['echo', 'acp']), default: 'echo', doc: 'echo (built in, offline) or acp' },
  agentCommand: { name: 'AGENT_COMMAND', ...text, doc: 'the ACP agent command line (required for acp)' },
  token: { name: 'TOKEN', ...text, doc: 'bearer token for every route but /health' },
  promptDeadlineMs: { name: 'PROMPT_DEADLINE_MS', ...integer(1, MS), doc: 'server deadline per prompt, from admission' },
  maxPendingPrompts: { name: 'MAX_PENDING_PROMPTS', ...integer(1, 10_000), default: '5', doc: 'admitted prompts per session' },
  chatRecording: { name: 'CHAT_RECORDING', ...flag, default: 'true', doc: 'write transcripts (needed for restart lookup)' },
  httpAdapter: { name: 'HTTP_ADAPTER', ...oneOf(['express', 'fastify']), default: 'express', doc: 'express or fastify' },
  echoDelayMs: { name: 'ECHO_DELAY_MS', ...integer(0, MS), default: '0', doc: 'spread the echo answer over this many ms' },
  maxWaitMs: { name: 'MAX_WAIT_MS', ...integer(0, 300_000), default: '30000', doc: 'longest wait of a turn request' },
  maxWaiters: { name: 'MAX_WAITERS', ...integer(1, 1_000_000), default: '10000', doc: 'held turn requests at once' },
  maxSessions: { name: 'MAX_SESSIONS', ...integer(1, 1_000_000), default: '1000', doc: 'live sessions at once' },
  maxSseStreams: { name: 'MAX_SSE_STREAMS', ...integer(1, 1_000_000), default: '1000', doc: 'open event streams per daemon' },
  maxSseStreamsPerSession: {
    name: 'MAX_SSE_STREAMS_PER_SESSION',
    ...integer(1, 1_000_000),
    default: '16',
    doc: 'open event streams per session',
  },
  maxBodyBytes: { name: 'MAX_BODY_BYTES', ...integer(1_024, 1024 ** 3), default: '4194304', doc: 'largest request body' },
  maxPromptChars: { name: 'MAX_PROMPT_CHARS', ...integer(1, 1024 ** 3), default: '1048576', doc: 'largest prompt, in UTF-16 code units' },
  maxTranscriptBytes: {
    name: 'MAX_TRANSCRIPT_BYTES',
    ...integer(1_024, 2 ** 53 - 1),
    default: '268435456',
    doc: 'load, rewind and fork refuse a larger transcript',
  },
  headersTimeoutMs: {
    name: 'HEADERS_TIMEOUT_MS',
    ...integer(1, MS),
    default: '10000',
    doc: 'time a client has to send its request headers',
  },
  requestTimeoutMs: { name: 'REQUEST_TIMEOUT_MS', ...integer(1, MS), default: '30000', doc: 'time a client has to send its whole request' },
  maxIdempotencyKeys: {
    name: 'MAX_IDEMPOTENCY_KEYS',
    ...integer(1, 10_000_000),
    default: '10000',
    doc: 'Idempotency-Keys remembered per daemon',
  },
  idempotencyTtlMs: {
    name: 'IDEMPOTENCY_TTL_MS',
    ...integer(1_000, 30 * 86_400_000),
    default: '86400000',
    doc: 'how long a key is remembered',
  },
  webhookUrl: {
    name: 'WEBHOOK_URL',
    ...checked((raw) => /^https?:\/\/[^\s]+$/.test(raw), 'must be an http(s) URL'),
    needs: { name: 'WEBHOOK_SECRET' },
    doc: "the operator's endpoint for every session's terminal events",
  },
  // The secret is never echoed in an error.
  webhookSecret: {
    name: 'WEBHOOK_SECRET',
    ...checked(isWebhookSecret, 'must be whsec_ followed by the base64 of at least 24 bytes'),
    doc: 'the signing secret of the deliveries',
  },
  webhookAllow: { name: 'WEBHOOK_ALLOW', ...webhookAllowList, doc: 'comma-separated hosts and CIDRs the SSRF guard lets through' },
  webhookTimeoutMs: { name: 'WEBHOOK_TIMEOUT_MS', ...integer(100, 600_000), default: '10000', doc: 'time an attempt has to get a 2xx' },
  webhookMaxAttempts: { name: 'WEBHOOK_MAX_ATTEMPTS', ...integer(1, 100), default: '8', doc: 'attempts per delivery' },
  webhookRetryBaseMs: { name: 'WEBHOOK_RETRY_BASE_MS', ...integer(1, 600_000), default: '5000', doc: 'scales the retry schedule' },
  maxWebhooksPerSession: { name: 'MAX_WEBHOOKS_PER_SESSION', ...integer(1, 100), default: '8', doc: 'subscriptions per session' },
  redisUrl: {
    name: 'REDIS_URL',
    ...checked((raw) => /^rediss?:\/\/[^\s]+$/.test(raw), 'must be a redis:// or rediss:// URL'),
    doc: 'cluster mode: the URL of the shared directory',
  },
  nodeId: {
    name: 'NODE_ID',
    ...checked((raw) => NODE_ID.test(raw), `must match ${NODE_ID.source} (got "%s")`),
    default: randomNodeId,
    defaultText: '<hostname>-<6 hex>',
    needs: CLUSTER,
    doc: "this daemon's name in the cluster",
  },
  nodeUrl: {
    name: 'NODE_URL',
    ...checked(
      (url) => /^https?:\/\/[^\s/]+$/.test(url),
      'must be an http(s) origin such as http://10.0.0.5:4170 (got "%s")',
      (raw) => raw.replace(/\/$/, ''),
    ),
    defaultText: 'the bound address',
    needs: CLUSTER,
    doc: 'how the other daemons reach this one',
  },
  leaseMs: { name: 'LEASE_MS', ...integer(1_000, 600_000), default: '10000', needs: CLUSTER, doc: 'lease time of session ownership' },
  forwardTimeoutMs: {
    name: 'FORWARD_TIMEOUT_MS',
    ...integer(100, 600_000),
    default: '10000',
    needs: CLUSTER,
    doc: 'time an owner has to start answering a forwarded request',
  },
  log: { name: 'LOG', ...oneOf(LOG_LEVELS), default: 'info', doc: `log level: ${LOG_LEVELS.join(', ')}` },
  logPolls: {
    name: 'LOG_POLLS',
    ...flag,
    default: 'false',
    doc: 'a request line at info for every poll answered 200 or 304 (else at debug)',
  },
  metrics: { name: 'METRICS', ...flag, default: 'true', doc: 'GET /metrics (Prometheus)' },
  metricsPort: { name: 'METRICS_PORT', ...integer(0, 65_535), doc: 'serve GET /metrics on this port of its own' },
  allowOrigins: {
    name: 'ALLOW_ORIGINS',
    read: (raw: string, variable: string, cwd: string) => {
      const origins = originList.read(raw, variable, cwd);
      return origins?.includes('*') ? ['*'] : origins;
    },
    doc: 'origins whose pages may call the daemon, or * (only with TURNS_TOKEN)',
  },
  allowedHosts: {
    name: 'ALLOWED_HOSTS',
    ...hostList,
    defaultText: 'loopback names on a loopback bind; any on another',
    doc: 'extra Host names accepted (no port)',
  },
} as const satisfies Record<string, DaemonSetting<unknown>>;

/** The command-line flag of a setting (`DATA_DIR` → `--data-dir`). */
export const flagOf = (setting: { name: string }) => `--${setting.name.toLowerCase().replaceAll('_', '-')}`;
