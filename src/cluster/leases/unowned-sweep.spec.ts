import { Logger } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { Redis } from 'ioredis';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HAS_REDIS, startRedis, type RedisProcess } from '../../../test/support/redis-server.js';
import { emptyKeptRedis, ownershipPorts, redisOwnership } from '../../../test/support/redis-ownership.js';
import { tempDir } from '../../../test/support/test-daemon.js';
import { ManualClock } from '../../../test/support/manual-clock.js';
import { RuntimeModule } from '../../runtime/runtime.module.js';
import { LostPromptSweep } from '../../sessions/lost-prompt-sweep.js';
import { ScriptedEngine } from '../../testing/scripted-engine.js';
import { chatsDir } from '../../transcript/transcript-paths.js';
import { TurnsModule } from '../../turns/turns.module.js';
import type { LeaseDirectory } from './lease-directory.js';
import type { RedisSessionOwnership } from './redis-session-ownership.js';

const SESSION = '7d1f6a0e-3b2c-4e5f-8a9b-0c1d2e3f4a5b';
const RUNNING = 'a1b2c3d4-0000-4000-8000-000000000001';
const LEASE_MS = 60_000;

/**
 * The cluster sweep against a real redis-server: a Redis that lost its keys
 * (FLUSHALL) while every connection stayed up must not hand a live owner's
 * session to the sweep of another node before the owner's next renewal
 * re-creates its lease; a dead owner's session is still settled.
 */
(HAS_REDIS ? describe : describe.skip)('the unowned sweep after Redis lost its keys (real redis-server)', () => {
  let redis: RedisProcess;
  let admin: Redis;
  let dir: string;
  let ledger: string;
  let clock: ManualClock;
  let module: TestingModule | undefined;
  const ownerships: RedisSessionOwnership[] = [];

  const ownershipOf = async (nodeId: string): Promise<{ ownership: RedisSessionOwnership; directory: LeaseDirectory }> => {
    const node = await redisOwnership({ redisUrl: redis.url, nodeId, leaseMs: LEASE_MS, dataDir: dir, clock });
    ownerships.push(node.ownership);
    return node;
  };
  const terminals = () =>
    readFileSync(ledger, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((record) => record.terminal);

  beforeAll(async () => {
    Logger.overrideLogger(false);
    redis = await startRedis();
    admin = new Redis(redis.url);
  });
  afterAll(async () => {
    admin.disconnect();
    await redis.kill();
  });
  beforeEach(async () => {
    await emptyKeptRedis(admin);
    clock = new ManualClock(0);
    dir = tempDir();
    const chats = chatsDir(dir, dir);
    mkdirSync(chats, { recursive: true });
    writeFileSync(join(chats, `${SESSION}.jsonl`), '');
    ledger = join(chats, `${SESSION}.ledger.jsonl`);
    writeFileSync(ledger, `${JSON.stringify({ v: 1, promptId: RUNNING, state: 'in_flight', at: Date.now() })}\n`);
  });
  afterEach(async () => {
    await module?.close();
    module = undefined;
    for (const ownership of ownerships.splice(0)) {
      await ownership.release(SESSION);
      await ownership.onApplicationShutdown();
    }
  });

  it("a live owner's session whose lease Redis lost is not taken before its renewal; once its owner is gone, it is settled", async () => {
    const owner = await ownershipOf('node-a');
    await owner.ownership.claim(SESSION);
    const sweeper = await ownershipOf('node-b');
    const engine = new ScriptedEngine();
    const runtime = RuntimeModule.forRoot({
      workspaces: [dir],
      dataDir: dir,
      engine: { useValue: engine },
      ownership: { useValue: sweeper.ownership },
      imports: [ownershipPorts(sweeper.ownership)],
    });
    module = await Test.createTestingModule({ imports: [runtime, TurnsModule.forRoot({ imports: [runtime] })] }).compile();
    await module.init();
    const sweep = module.get(LostPromptSweep);
    // Connected longer than a lease (on the spec's clock): nothing tells the sweeper that Redis lost its keys.
    clock.time = Math.max(owner.directory.connectedAt, sweeper.directory.connectedAt) + LEASE_MS + 1;

    await admin.flushall();
    expect(sweeper.ownership.mayClaimUnowned()).toBe(true);
    await expect(sweep.sweep()).resolves.toBe(0);
    expect(terminals()).toEqual([]);

    // The owner's renewal (a third of a lease later) re-creates its lease; it still writes.
    clock.time += LEASE_MS / 3;
    await owner.ownership.tick();
    clock.time += LEASE_MS;
    await expect(sweep.sweep()).resolves.toBe(0);
    expect(terminals()).toEqual([]);
    await expect(owner.ownership.mayWrite(SESSION)).resolves.toBe(true);

    // The owner dies: its lease and its heartbeat expire. Seen missing twice, a lease apart, the session is settled.
    await admin.del(`turns:lease:${SESSION}`, 'turns:node:node-a');
    await expect(sweep.sweep()).resolves.toBe(0);
    clock.time += LEASE_MS;
    await expect(sweep.sweep()).resolves.toBe(1);
    expect(terminals().map((record) => [record.promptId, record.terminal, record.code])).toEqual([[RUNNING, 'interrupted', 'daemon_lost']]);
  });
});
