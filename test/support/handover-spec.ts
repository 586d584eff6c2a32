import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RedisSessionOwnership } from '../../src/cluster/leases/redis-session-ownership.js';
import { settle } from './deferred.js';
import { ManualClock } from './manual-clock.js';
import { emptyKeptRedis, ownershipOver, specDirectory, specNode } from './redis-ownership.js';
import { startRedis, type RedisProcess } from './redis-server.js';

export const S1 = '11111111-1111-4111-8111-111111111111';
export const LEASE_MS = 1_000;
export const TOKEN = 'peer-secret';

/** What {@link handoverWorld} gives a spec; set anew before each test, when node-a has claimed S1. */
export interface HandoverWorld {
  redis: RedisProcess;
  admin: Redis;
  dataDir: string;
  clock: ManualClock;
  /** Sessions lost, as `<node> <sessionId>`. */
  lost: string[];
  /** What node-a's peer route was asked. */
  asked: Array<{ url?: string; authorization?: string; body: string }>;
  /** node-a's peer route never answers. */
  hang: boolean;
  /** The name node-a's peer route answers with (`X-Turns-Node`). */
  answeredAs: string;
  peerUrl: string;
  /** node-a, whose peer route is a real HTTP server answering as the cluster controller does. */
  a: RedisSessionOwnership;
  ownershipOf(node: string, url: string): Promise<RedisSessionOwnership>;
  /** `b`'s claim of S1 waits its lease out: unresolved while the clock stands before its reply + a lease, held after. */
  expectWaitedOut(b: RedisSessionOwnership): Promise<void>;
}

/**
 * The lease handover's world (docs/cluster.md#inv-lease-5), set up by the hooks this registers in the calling
 * `describe`: a real redis-server, node-a holding S1 with its peer route listening, the spec's manual clock.
 */
export function handoverWorld(): HandoverWorld {
  const created: Array<{ ownership: RedisSessionOwnership; client: Redis }> = [];
  let peer: Server;
  const w = {
    lost: [],
    asked: [],
    hang: false,
    answeredAs: 'node-a',
    async ownershipOf(node: string, url: string) {
      const directory = await specDirectory(w.redis.url, LEASE_MS, w.clock);
      const spec = { node: specNode(node, url), redisUrl: w.redis.url, dataDir: w.dataDir, clock: w.clock, peerToken: TOKEN };
      const { ownership } = ownershipOver(directory, spec);
      ownership.onLoss((sessionId) => w.lost.push(`${node} ${sessionId}`));
      created.push({ ownership, client: directory.redis });
      return ownership;
    },
    async expectWaitedOut(b: RedisSessionOwnership) {
      w.clock.time = 100;
      let resolved = false;
      const claimed = b.claim(S1).then(() => (resolved = true));
      await new Promise((resolve) => setTimeout(resolve, 150));
      await settle();
      expect(resolved).toBe(false);
      w.clock.time = 1_100;
      await claimed;
      expect(b.holds(S1)).toBe(true);
    },
  } as unknown as HandoverWorld;

  beforeAll(async () => {
    Logger.overrideLogger(false);
    w.redis = await startRedis();
    w.admin = new Redis(w.redis.url);
    peer = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        w.asked.push({ url: req.url, authorization: req.headers.authorization, body });
        if (w.hang) return;
        void w.a
          .yieldTo(req.url!.split('/')[3]!, (JSON.parse(body) as { fence: number }).fence)
          .then((released) =>
            res.writeHead(200, { 'content-type': 'application/json', 'x-turns-node': w.answeredAs }).end(JSON.stringify({ released })),
          );
      });
    });
    await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
    w.peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    peer.closeAllConnections();
    await new Promise((resolve) => peer.close(resolve));
    w.admin.disconnect();
    await w.redis.kill();
  });
  beforeEach(async () => {
    await emptyKeptRedis(w.admin);
    w.dataDir = mkdtempSync(join(tmpdir(), 'handover-'));
    w.clock = new ManualClock(0);
    w.lost = [];
    w.asked = [];
    w.hang = false;
    w.answeredAs = 'node-a';
    w.a = await w.ownershipOf('node-a', w.peerUrl);
    await w.a.claim(S1);
  });
  afterEach(async () => {
    for (const { ownership, client } of created.splice(0)) {
      await ownership.onApplicationShutdown();
      await ownership.release(S1);
      client.disconnect();
    }
    peer.closeAllConnections();
    rmSync(w.dataDir, { recursive: true, force: true });
  });
  return w;
}
