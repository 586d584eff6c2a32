import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LeaseDirectory } from '../../src/cluster/leases/lease-directory.js';
import type { RedisSessionOwnership } from '../../src/cluster/leases/redis-session-ownership.js';
import { ManualClock } from './manual-clock.js';
import { emptyKeptRedis, ownershipOver, specNode } from './redis-ownership.js';
import { startRedis, type RedisProcess } from './redis-server.js';

export const S1 = '11111111-1111-4111-8111-111111111111';
export const S2 = '22222222-2222-4222-8222-222222222222';
export const A = { node: 'node-a', url: 'http://127.0.0.1:1' };
export const B = { node: 'node-b', url: 'http://127.0.0.1:2' };

/** What {@link leaseSpecWorld} gives a spec; its fields are set anew before each test. */
export interface LeaseSpecWorld {
  redis: RedisProcess;
  admin: Redis;
  clock: ManualClock;
  directory: LeaseDirectory;
  dataDir: string;
  lost: string[];
  client(): Redis;
  directoryOver(client: Redis, leaseMs?: number): LeaseDirectory;
  nodeOf(self: typeof A, dir?: LeaseDirectory): ReturnType<typeof ownershipOver>;
  ownershipOf(self: typeof A, dir?: LeaseDirectory): RedisSessionOwnership;
}

/**
 * The lease specs' world, set up by the hooks this registers in the calling `describe`: a real redis-server started
 * for the file, a Redis kept (not lost) before each test, a manual clock from 0, a shared directory of
 * `directoryLeaseMs`, and nodes whose ownership leases for `ownershipLeaseMs`, shut down after each test.
 */
export function leaseSpecWorld(options: { directoryLeaseMs: number; ownershipLeaseMs?: number }): LeaseSpecWorld {
  const clients: Redis[] = [];
  const created: RedisSessionOwnership[] = [];
  const world: LeaseSpecWorld = {
    redis: undefined as unknown as RedisProcess,
    admin: undefined as unknown as Redis,
    clock: new ManualClock(0),
    directory: undefined as unknown as LeaseDirectory,
    /** The nodes' shared data dir, where each claim records its fence. */
    dataDir: '',
    /** Sessions the ownerships made here lost, in order. */
    lost: [] as string[],
    /** A connection of its own to the spec's Redis. */
    client(): Redis {
      const client = new Redis(world.redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
      client.on('error', () => undefined);
      clients.push(client);
      return client;
    },
    /** A directory over `client`, on the world's clock (not awaited: a spec may disconnect it first). */
    directoryOver(client: Redis, leaseMs = options.directoryLeaseMs): LeaseDirectory {
      return new LeaseDirectory(client, leaseMs, 'turns:', world.clock);
    },
    /** A node's ownership and its stores over `dir`. */
    nodeOf(self: typeof A, dir = world.directory) {
      const made = ownershipOver(dir, {
        node: specNode(self.node, self.url),
        redisUrl: world.redis.url,
        dataDir: world.dataDir,
        clock: world.clock,
        leaseMs: options.ownershipLeaseMs,
      });
      made.ownership.onLoss((sessionId) => world.lost.push(sessionId));
      created.push(made.ownership);
      return made;
    },
    ownershipOf(self: typeof A, dir = world.directory): RedisSessionOwnership {
      return world.nodeOf(self, dir).ownership;
    },
  };

  beforeAll(async () => {
    // Lease losses are logged as warnings; here they are the expected outcome.
    Logger.overrideLogger(false);
    world.redis = await startRedis();
    world.admin = new Redis(world.redis.url);
  });
  afterAll(async () => {
    for (const client of clients) if (client.status !== 'end') client.disconnect();
    world.admin.disconnect();
    await world.redis.kill();
  });
  beforeEach(async () => {
    world.clock = new ManualClock(0);
    world.lost = [];
    world.dataDir = mkdtempSync(join(tmpdir(), 'fences-'));
    world.directory = world.directoryOver(world.client());
    await world.directory.ready(5_000);
    await emptyKeptRedis(world.admin);
  });
  // Shut each down as the app would (no announcement left pending after the test).
  afterEach(async () => {
    for (const ownership of created.splice(0)) {
      await ownership.onApplicationShutdown();
      for (const sessionId of [S1, S2]) await ownership.release(sessionId);
    }
    rmSync(world.dataDir, { recursive: true, force: true });
  });
  return world;
}
