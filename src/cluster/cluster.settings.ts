import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { checked, integer } from '../common/settings/readers.js';
import type { Settings } from '../common/settings/setting.js';

// Loaded by the daemon's configuration without cluster mode: no Redis client, no undici here.

const NODE_ID = /^[A-Za-z0-9._:-]{1,64}$/;
const CLUSTER = { name: 'REDIS_URL', why: 'cluster mode' };

const randomNodeId = () =>
  `${hostname()
    .replace(/[^A-Za-z0-9._:-]/g, '-')
    .slice(0, 48)}-${randomBytes(3).toString('hex')}`;

/** Cluster mode (`TURNS_REDIS_URL` set): {@link ClusterOptions} and `TURNS_*` settings of the daemon. */
export const CLUSTER_MODE_SETTINGS = {
  redisUrl: {
    name: 'REDIS_URL',
    ...checked((raw) => /^rediss?:\/\/[^\s]+$/.test(raw), 'must be a redis:// or rediss:// URL'),
    doc: 'cluster mode: `redis://` or `rediss://` URL of the shared directory (Redis ≥ 7 or Valkey); unset = one daemon',
  },
  nodeId: {
    name: 'NODE_ID',
    ...checked((raw) => NODE_ID.test(raw), `must match ${NODE_ID.source} (got "%s")`),
    default: randomNodeId,
    defaultText: '`<hostname>-<6 hex>`',
    needs: CLUSTER,
    doc: "this daemon's name in the cluster (`[A-Za-z0-9._:-]{1,64}`); cluster mode only",
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
    doc: 'how the other daemons reach this one (required when bound to `0.0.0.0`/`::`); cluster mode only',
  },
  leaseMs: {
    name: 'LEASE_MS',
    ...integer(1_000, 600_000),
    default: 10_000,
    needs: CLUSTER,
    doc: 'lease time of session ownership (1,000–600,000); cluster mode only',
  },
  forwardTimeoutMs: {
    name: 'FORWARD_TIMEOUT_MS',
    ...integer(100, 600_000),
    default: 10_000,
    needs: CLUSTER,
    doc: 'time an owner has to start answering a forwarded request (plus the wait a held turn request asks for); then `503 cluster_unavailable`; cluster mode only',
  },
} as const satisfies Settings;
