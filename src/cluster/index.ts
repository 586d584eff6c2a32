/** @module nest-turn-status/daemon — cluster mode, loaded by the daemon only when TURNS_REDIS_URL is set. */
import { assertSingleCopy } from '../common/single-copy.js';

// One copy of the injection tokens per process (see assertSingleCopy).
assertSingleCopy();

export { ClusterModule } from './cluster.module.js';
export { installClusterRouter } from './routing/install-cluster-router.js';
export type { ClusterOptions } from './node/cluster.settings.js';
export { RedisSessionOwnership } from './leases/redis-session-ownership.js';
export { ClusterOwnership } from './leases/cluster-ownership.js';
export { LeaseDirectory } from './leases/lease-directory.js';
export { LeaseStore } from './leases/lease-store.js';
export { NodeRegistry, type NodeRecord } from './leases/node-registry.js';
export { MonotonicClock, PerformanceClock } from './leases/monotonic-clock.js';
export type { Lease, ClaimResult, RenewOutcome } from './leases/lease.js';
export { ClusterNode } from './node/cluster-node.js';
export { SessionFences } from './leases/session-fences.js';
