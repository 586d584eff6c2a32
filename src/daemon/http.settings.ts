import { integer, list, milliseconds, oneOf, text } from '../common/settings/readers.js';
import { ConfigError, type Settings } from '../common/settings/setting.js';

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

/** The daemon's HTTP server: where it binds, who may call it, and the bounds of a request. */
export const HTTP_SETTINGS = {
  host: {
    name: 'HOST',
    ...text,
    default: '127.0.0.1',
    doc: 'bind address; a non-loopback address without a token (`TURNS_TOKEN` or `TURNS_TOKENS_FILE`) refuses to start',
  },
  port: { name: 'PORT', ...integer(0, 65_535), default: 4170, doc: 'port' },
  httpAdapter: { name: 'HTTP_ADAPTER', ...oneOf(['express', 'fastify']), default: 'express', doc: '`express` or `fastify`' },
  maxBodyBytes: {
    name: 'MAX_BODY_BYTES',
    ...integer(1_024, 1024 ** 3),
    default: 4 * 1024 * 1024,
    limit: 'maxBodyBytes',
    doc: 'largest request body; beyond → `413 payload_too_large`',
  },
  headersTimeoutMs: {
    name: 'HEADERS_TIMEOUT_MS',
    ...milliseconds(),
    default: 10_000,
    limit: 'headersTimeoutMs',
    doc: 'time a client has to send its request headers (slow-header clients are cut off within a second of it: `408`)',
  },
  requestTimeoutMs: {
    name: 'REQUEST_TIMEOUT_MS',
    ...milliseconds(),
    default: 30_000,
    limit: 'requestTimeoutMs',
    doc: 'time a client has to send its whole request, cut within a second of it (responses, SSE included, are not limited)',
  },
  allowOrigins: {
    name: 'ALLOW_ORIGINS',
    read: (raw: string, variable: string, cwd: string) => {
      const origins = originList.read(raw, variable, cwd);
      return origins?.includes('*') ? ['*'] : origins;
    },
    doc: 'origins whose web pages may call the daemon (exact, comma-separated; `*` only with a token); any other `Origin` → `403 origin_forbidden` (see [Security](security.md))',
  },
  allowedHosts: {
    name: 'ALLOWED_HOSTS',
    ...hostList,
    defaultText: 'loopback names on a loopback bind; any on another',
    doc: 'extra `Host` names accepted (no port); any other → `403 origin_forbidden`',
  },
} as const satisfies Settings;
