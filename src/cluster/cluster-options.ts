import type { SettingOptions } from '../common/settings/setting.js';
import { WAIT_DEFAULTS } from '../turns/wait/wait.settings.js';
import { CLUSTER_MODE_SETTINGS } from './cluster.settings.js';

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
