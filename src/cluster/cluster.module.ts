import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { Redis } from 'ioredis';
import { ClusterNode } from './node/cluster-node.js';
import { CLUSTER_REDIS, CLUSTER_SETTINGS, clusterSettings, type ClusterOptions, type ClusterSettings } from './node/cluster.settings.js';
import { ClusterRouter } from './routing/cluster-router.js';
import { ClusterController } from './cluster.controller.js';
import { ClusterOwnership } from './leases/cluster-ownership.js';
import { LeaseClaimer } from './leases/lease-claimer.js';
import { LeaseDirectory } from './leases/lease-directory.js';
import { LeaseHandover } from './leases/lease-handover.js';
import { LeaseStore } from './leases/lease-store.js';
import { MonotonicClock, PerformanceClock } from './leases/monotonic-clock.js';
import { NodeRegistry } from './leases/node-registry.js';
import { RedisOutboxClaims } from './leases/redis-outbox-claims.js';
import { RedisSessionOwnership } from './leases/redis-session-ownership.js';
import { SessionFences } from './leases/session-fences.js';
import { RequestForwarder } from './routing/request-forwarder.js';
import { SessionOwners } from './routing/session-owners.js';
import { OutboxClaims } from '../webhooks/outbox-claims.js';
import { SharedIdempotencyKeys } from '../idempotency/shared-idempotency-keys.js';
import { RedisIdempotencyKeys } from './create-keys/redis-idempotency-keys.js';
import { CreateKeyRecords } from './create-keys/create-key-records.js';
import { ClusterView } from '../sessions/cluster-view.js';
import { SessionWriteFence } from '../sessions/session-write-fence.js';
import { UnownedSessions } from '../sessions/unowned-sessions.js';

/** How long start-up waits for the first Redis connection before serving anyway. */
const FIRST_CONNECT_MS = 2_000;

/** A client that fails fast while disconnected and reconnects on its own. */
function connect(url: string): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    commandTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  // Outages are reported (once) by the lease renewal; the URL may carry a password, so it is never logged.
  redis.on('error', () => undefined);
  return redis;
}

/**
 * Cluster mode: leases in Redis, the router and `GET /cluster/nodes`; pass the runtime its {@link RedisSessionOwnership}
 * (docs/cluster.md#in-an-app-of-your-own).
 *
 * @publicApi
 */
@Module({})
export class ClusterModule {
  static forRoot(options: ClusterOptions): DynamicModule {
    return {
      module: ClusterModule,
      controllers: [ClusterController],
      providers: [
        { provide: CLUSTER_SETTINGS, useValue: clusterSettings(options) },
        { provide: CLUSTER_REDIS, inject: [CLUSTER_SETTINGS], useFactory: (settings: ClusterSettings) => connect(settings.redisUrl) },
        // What leases are timed by (docs/cluster.md#inv-lease-2): one clock for the directory and the ownership.
        { provide: MonotonicClock, useClass: PerformanceClock },
        {
          provide: LeaseDirectory,
          inject: [CLUSTER_REDIS, CLUSTER_SETTINGS, MonotonicClock],
          useFactory: async (redis: Redis, settings: ClusterSettings, clock: MonotonicClock) => {
            const directory = new LeaseDirectory(redis, settings.leaseMs, settings.keyPrefix, clock);
            await directory.ready(FIRST_CONNECT_MS);
            return directory;
          },
        },
        ClusterNode,
        {
          provide: SessionFences,
          inject: [CLUSTER_SETTINGS],
          useFactory: (settings: ClusterSettings) => {
            if (settings.dataDir === undefined)
              new Logger('Cluster').warn('no dataDir: fences live in Redis only, and Redis losing its data can make two owners');
            return new SessionFences(settings.dataDir);
          },
        },
        LeaseStore,
        NodeRegistry,
        LeaseHandover,
        LeaseClaimer,
        RedisSessionOwnership,
        // The cluster's own code (its peer route, its router) asks the ownership through this port; the runtime's
        // writers, its lost-prompt sweep and the daemon's status read theirs (docs/cluster.md#ownership-ports).
        { provide: ClusterOwnership, useExisting: RedisSessionOwnership },
        { provide: SessionWriteFence, useExisting: ClusterOwnership },
        { provide: UnownedSessions, useExisting: ClusterOwnership },
        { provide: ClusterView, useExisting: ClusterOwnership },
        // The router's port to the leases (docs/cluster.md#layout).
        {
          provide: SessionOwners,
          inject: [LeaseStore, ClusterOwnership],
          useFactory: (leases: LeaseStore, ownership: ClusterOwnership): SessionOwners => ({
            holds: (sessionId) => ownership.holds(sessionId),
            confirm: (sessionId) => ownership.confirm(sessionId),
            claim: (sessionId) => ownership.claim(sessionId),
            lookup: (sessionId) => leases.lookup(sessionId),
          }),
        },
        RequestForwarder,
        ClusterRouter,
        // The runtime's webhook outbox adoption asks these which dead node's outbox it may take.
        { provide: OutboxClaims, useClass: RedisOutboxClaims },
        // And the idempotency interceptor, whether a create's key was used on another node.
        {
          provide: SharedIdempotencyKeys,
          inject: [CLUSTER_REDIS, CLUSTER_SETTINGS],
          useFactory: (redis: Redis, settings: ClusterSettings) =>
            new RedisIdempotencyKeys(redis, settings, settings.dataDir === undefined ? undefined : new CreateKeyRecords(settings.dataDir)),
        },
      ],
      exports: [
        RedisSessionOwnership,
        ClusterOwnership,
        SessionWriteFence,
        UnownedSessions,
        ClusterView,
        ClusterNode,
        ClusterRouter,
        CLUSTER_SETTINGS,
        OutboxClaims,
        SharedIdempotencyKeys,
      ],
    };
  }
}
