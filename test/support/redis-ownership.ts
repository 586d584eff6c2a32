import { Module, type DynamicModule } from '@nestjs/common';
import { Redis } from 'ioredis';
import { ClusterOwnership } from '../../src/cluster/leases/cluster-ownership.js';
import type { ClusterNode } from '../../src/cluster/node/cluster-node.js';
import { clusterSettings } from '../../src/cluster/node/cluster.settings.js';
import { LeaseClaimer } from '../../src/cluster/leases/lease-claimer.js';
import { LeaseDirectory } from '../../src/cluster/leases/lease-directory.js';
import { LeaseHandover } from '../../src/cluster/leases/lease-handover.js';
import { LeaseStore } from '../../src/cluster/leases/lease-store.js';
import type { MonotonicClock } from '../../src/cluster/leases/monotonic-clock.js';
import { NodeRegistry } from '../../src/cluster/leases/node-registry.js';
import { RedisSessionOwnership } from '../../src/cluster/leases/redis-session-ownership.js';
import { SessionFences } from '../../src/cluster/leases/session-fences.js';
import { ClusterView } from '../../src/sessions/cluster-view.js';
import { SessionWriteFence } from '../../src/sessions/session-write-fence.js';
import { UnownedSessions } from '../../src/sessions/unowned-sessions.js';

/** A cluster node as specs make it: an id, a URL, listening. */
export function specNode(id: string, url = 'http://127.0.0.1:1'): ClusterNode {
  return { id, url, listening: true, startedAt: 0, whenListening: () => undefined } as unknown as ClusterNode;
}

/**
 * A cluster node's session ownership over `directory` (a real redis-server): fences on `dataDir`, the spec's clock,
 * wired as ClusterModule wires it; `leaseMs`: the ownership's, when not the directory's.
 */
export function ownershipOver(
  directory: LeaseDirectory,
  options: { node: ClusterNode; redisUrl: string; dataDir: string; clock: MonotonicClock; peerToken?: string; leaseMs?: number },
): { ownership: RedisSessionOwnership; leases: LeaseStore; nodes: NodeRegistry } {
  const { node, redisUrl, dataDir, clock, peerToken, leaseMs = directory.leaseMs } = options;
  const settings = clusterSettings({ redisUrl, nodeId: node.id, leaseMs, dataDir, peerToken });
  const leases = new LeaseStore(directory);
  const nodes = new NodeRegistry(directory);
  const fences = new SessionFences(dataDir);
  const claimer = new LeaseClaimer(leases, node, settings, fences, new LeaseHandover(settings, clock), clock);
  const ownership = new RedisSessionOwnership(leases, nodes, node, settings, fences, claimer, clock);
  return { ownership, leases, nodes };
}

@Module({})
class OwnershipPortsModule {}

/**
 * The ports `ClusterModule` binds to its ownership (docs/cluster.md#ownership-ports), bound to `ownership`: put it in
 * the `imports` of a runtime given `ownership: { useValue: ownership }`, as the daemon puts `ClusterModule`.
 */
export function ownershipPorts(ownership: ClusterOwnership): DynamicModule {
  const ports = [ClusterOwnership, SessionWriteFence, UnownedSessions, ClusterView];
  return { module: OwnershipPortsModule, providers: ports.map((provide) => ({ provide, useValue: ownership })), exports: ports };
}

/** A connection of its own to the spec's redis-server, as a directory timed by the spec's clock. */
export async function specDirectory(redisUrl: string, leaseMs: number, clock: MonotonicClock): Promise<LeaseDirectory> {
  const client = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  client.on('error', () => undefined);
  const directory = new LeaseDirectory(client, leaseMs, 'turns:', clock);
  await directory.ready(5_000);
  return directory;
}

/**
 * A cluster node's session ownership in this process, on a real redis-server: its own connection, fences on
 * `dataDir`, a URL nothing listens at (a claim's handover finds the previous owner gone at once), and the spec's clock.
 */
export async function redisOwnership(options: {
  redisUrl: string;
  nodeId: string;
  leaseMs: number;
  dataDir: string;
  clock: MonotonicClock;
}): Promise<{ ownership: RedisSessionOwnership; directory: LeaseDirectory; leases: LeaseStore }> {
  const { redisUrl, nodeId, leaseMs, dataDir, clock } = options;
  const directory = await specDirectory(redisUrl, leaseMs, clock);
  const { ownership, leases } = ownershipOver(directory, { node: specNode(nodeId), redisUrl, dataDir, clock });
  return { ownership, directory, leases };
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
