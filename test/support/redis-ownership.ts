import { Redis } from 'ioredis';
import type { ClusterNode } from '../../src/cluster/node/cluster-node.js';
import { clusterSettings } from '../../src/cluster/node/cluster.settings.js';
import { LeaseDirectory } from '../../src/cluster/lease-directory.js';
import { LeaseHandover } from '../../src/cluster/lease-handover.js';
import { RedisSessionOwnership } from '../../src/cluster/redis-session-ownership.js';
import { SessionFences } from '../../src/cluster/session-fences.js';

/**
 * A cluster node's session ownership in this process, on a real redis-server:
 * its own connection, fences on `dataDir`, a URL nothing listens at (a claim's
 * handover finds the previous owner gone at once), and the spec's clock.
 */
export async function redisOwnership(options: {
  redisUrl: string;
  nodeId: string;
  leaseMs: number;
  dataDir: string;
  clock: () => number;
}): Promise<{ ownership: RedisSessionOwnership; directory: LeaseDirectory }> {
  const { redisUrl, nodeId, leaseMs, dataDir } = options;
  const client = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  client.on('error', () => undefined);
  const directory = new LeaseDirectory(client, leaseMs);
  await directory.ready(5_000);
  const node = { id: nodeId, url: 'http://127.0.0.1:1', listening: true, startedAt: 0, whenListening: () => undefined };
  const settings = clusterSettings({ redisUrl, nodeId, leaseMs, dataDir });
  const ownership = new RedisSessionOwnership(
    directory,
    node as unknown as ClusterNode,
    settings,
    new SessionFences(dataDir),
    new LeaseHandover(directory, settings),
  );
  ownership.monotonic = options.clock;
  return { ownership, directory };
}

/**
 * Empties the spec's Redis and leaves it as one that has kept its data (its
 * generation counted): a claim then sees no loss, as in a cluster that has run
 * for longer than a lease. A FLUSHALL inside a test is a loss.
 */
export async function emptyKeptRedis(admin: Redis): Promise<void> {
  await admin.flushall();
  await admin.set('turns:data', '1');
}
