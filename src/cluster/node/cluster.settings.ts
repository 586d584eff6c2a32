import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { checked, integer } from '../../common/settings/readers.js';
import type { SettingOptions, Settings } from '../../common/settings/setting.js';
import { WAIT_DEFAULTS } from '../../turns/wait/wait.settings.js';

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

/**
 * Configuration of {@link ClusterModule}: the rows of `CLUSTER_MODE_SETTINGS`
 * (`redisUrl` and `nodeId` required; `nodeUrl`, `leaseMs` — renewed every third
 * of it —, `forwardTimeoutMs` default as their `TURNS_*` variables do), and:
 *
 * @publicApi
 */
export interface ClusterOptions extends SettingOptions<typeof CLUSTER_MODE_SETTINGS> {
  /** `redis://host:port/db` of the shared directory (Redis ≥ 7 or Valkey). */
  redisUrl: string;
  /** This node's name in the directory; unique per running daemon. */
  nodeId: string;
  /** Prefix of every Redis key. @default `turns:` */
  keyPrefix?: string;
  /** How long a looked-up owner is reused before asking Redis again. @default 1000 */
  ownerCacheMs?: number;
  /** The longest wait a turn request may ask for (sizes the forwarding time-out). @default `TurnsModule`'s */
  maxWaitMs?: number;
  /**
   * The runtime's shared `dataDir`: each claim's fence and each create key's
   * answer are recorded under it, so a claim made after Redis lost its data
   * still fences the owner before it, and a create key still replays.
   * @default none (fences and create keys live in Redis only)
   */
  dataDir?: string;
  /**
   * The bearer token the nodes share (the daemon's `TURNS_TOKEN`): a node
   * presents it when it asks a previous owner to let go of a session.
   * @default none (the nodes' routes are open)
   */
  peerToken?: string;
}

/** {@link ClusterOptions} with the defaults applied. */
export type ClusterSettings = Required<Omit<ClusterOptions, 'nodeUrl' | 'dataDir' | 'peerToken'>> &
  Pick<ClusterOptions, 'nodeUrl' | 'dataDir' | 'peerToken'>;

export const CLUSTER_SETTINGS = Symbol('CLUSTER_SETTINGS');
/** The cluster's one Redis connection (the lease directory's and the shared idempotency keys'). */
export const CLUSTER_REDIS = Symbol('CLUSTER_REDIS');

export function clusterSettings(options: ClusterOptions): ClusterSettings {
  return {
    ...options,
    leaseMs: options.leaseMs ?? CLUSTER_MODE_SETTINGS.leaseMs.default,
    keyPrefix: options.keyPrefix ?? 'turns:',
    forwardTimeoutMs: options.forwardTimeoutMs ?? CLUSTER_MODE_SETTINGS.forwardTimeoutMs.default,
    ownerCacheMs: options.ownerCacheMs ?? 1_000,
    maxWaitMs: options.maxWaitMs ?? WAIT_DEFAULTS.maxWaitMs,
  };
}
