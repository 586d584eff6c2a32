import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { Redis } from 'ioredis';
import { ClusterNode } from './node/cluster-node.js';
import { CLUSTER_REDIS, CLUSTER_SETTINGS, clusterSettings, type ClusterOptions, type ClusterSettings } from './node/cluster.settings.js';
import { ClusterRouter } from './routing/cluster-router.js';
import { ClusterController } from './cluster.controller.js';
import { LeaseDirectory } from './lease-directory.js';
import { LeaseHandover } from './lease-handover.js';
import { RedisSessionOwnership } from './redis-session-ownership.js';
import { RequestForwarder } from './routing/request-forwarder.js';
import { SessionOwners } from './routing/session-owners.js';
import { SessionFences } from './session-fences.js';
import { OutboxClaims } from '../webhooks/outbox-claims.js';
import { RedisOutboxClaims } from './redis-outbox-claims.js';
import { SharedIdempotencyKeys } from '../idempotency/shared-idempotency-keys.js';
import { RedisIdempotencyKeys } from './create-keys/redis-idempotency-keys.js';
import { CreateKeyRecords } from './create-keys/create-key-records.js';

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
 * Cluster mode: session leases in Redis, the router that forwards a request
 * to its session's owner (`ClusterRouter.stage`, which the daemon puts in its
 * front door; an app of your own calls `installClusterRouter(app)` after
 * `app.init()`), and `GET /cluster/nodes`. Pass its
 * {@link RedisSessionOwnership} to the runtime as its `ownership`:
 *
 * ```ts
 * const cluster = ClusterModule.forRoot({ redisUrl, nodeId, dataDir });
 * RuntimeModule.forRoot({ workspaces, dataDir, imports: [cluster], ownership: { useExisting: RedisSessionOwnership } })
 * ```
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
        {
          provide: LeaseDirectory,
          inject: [CLUSTER_REDIS, CLUSTER_SETTINGS],
          useFactory: async (redis: Redis, settings: ClusterSettings) => {
            const directory = new LeaseDirectory(redis, settings.leaseMs, settings.keyPrefix);
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
        LeaseHandover,
        RedisSessionOwnership,
        // The router's port to the leases (docs/cluster.md#layout).
        {
          provide: SessionOwners,
          inject: [LeaseDirectory, RedisSessionOwnership],
          useFactory: (directory: LeaseDirectory, ownership: RedisSessionOwnership): SessionOwners => ({
            holds: (sessionId) => ownership.holds(sessionId),
            confirm: (sessionId) => ownership.confirm(sessionId),
            claim: (sessionId) => ownership.claim(sessionId),
            lookup: (sessionId) => directory.lookup(sessionId),
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
      exports: [RedisSessionOwnership, ClusterNode, ClusterRouter, CLUSTER_SETTINGS, OutboxClaims, SharedIdempotencyKeys],
    };
  }
}
