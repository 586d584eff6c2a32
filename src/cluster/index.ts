/** @module nest-turn-status/daemon — cluster mode, loaded by the daemon only when TURNS_REDIS_URL is set. */
import { assertSingleCopy } from '../common/single-copy.js';

// One copy of the injection tokens per process (see assertSingleCopy).
assertSingleCopy();

export { ClusterModule } from './cluster.module.js';
export { installClusterRouter } from './routing/install-cluster-router.js';
export type { ClusterOptions } from './node/cluster.settings.js';
export { RedisSessionOwnership } from './redis-session-ownership.js';
export { LeaseDirectory, type Lease, type NodeRecord, type ClaimResult, type RenewOutcome } from './lease-directory.js';
export { ClusterNode } from './node/cluster-node.js';
export { SessionFences } from './session-fences.js';
