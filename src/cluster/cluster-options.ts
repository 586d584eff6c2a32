/**
 * Configuration of {@link ClusterModule}.
 *
 * @publicApi
 */
export interface ClusterOptions {
  /** `redis://host:port/db` of the shared directory (Redis ≥ 7 or Valkey). */
  redisUrl: string;
  /** This node's name in the directory; unique per running daemon. */
  nodeId: string;
  /** How other nodes reach this one. @default `http://<bound address>` */
  nodeUrl?: string;
  /** Lease time of a session's ownership; renewed every third of it. @default 10000 */
  leaseMs?: number;
  /** Prefix of every Redis key. @default `turns:` */
  keyPrefix?: string;
  /** Time an owner has to answer a forwarded request (plus the wait a held turn request asks for). @default 10000 */
  forwardTimeoutMs?: number;
  /** How long a looked-up owner is reused before asking Redis again. @default 1000 */
  ownerCacheMs?: number;
  /** The longest wait a turn request may ask for (sizes the forwarding time-out). @default 30000 */
  maxWaitMs?: number;
}

/** {@link ClusterOptions} with the defaults applied. */
export type ClusterSettings = Required<Omit<ClusterOptions, 'nodeUrl'>> & Pick<ClusterOptions, 'nodeUrl'>;

export const CLUSTER_SETTINGS = Symbol('CLUSTER_SETTINGS');

export function clusterSettings(options: ClusterOptions): ClusterSettings {
  return {
    ...options,
    leaseMs: options.leaseMs ?? 10_000,
    keyPrefix: options.keyPrefix ?? 'turns:',
    forwardTimeoutMs: options.forwardTimeoutMs ?? 10_000,
    ownerCacheMs: options.ownerCacheMs ?? 1_000,
    maxWaitMs: options.maxWaitMs ?? 30_000,
  };
}
