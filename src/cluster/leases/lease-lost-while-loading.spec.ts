import { Logger } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { Redis } from 'ioredis';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deferred } from '../../../test/support/deferred.js';
import { HAS_REDIS, startRedis, type RedisProcess } from '../../../test/support/redis-server.js';
import { emptyKeptRedis, ownershipPorts, redisOwnership } from '../../../test/support/redis-ownership.js';
import { tempDir } from '../../../test/support/test-daemon.js';
import { ManualClock } from '../../../test/support/manual-clock.js';
import { RuntimeModule } from '../../runtime/runtime.module.js';
import { SessionsService } from '../../sessions/sessions.service.js';
import { ScriptedEngine } from '../../testing/scripted-engine.js';
import { ChatRecordingService } from '../../transcript/chat-recording.service.js';
import { chatsDir } from '../../transcript/transcript-paths.js';
import { TurnsModule } from '../../turns/turns.module.js';
import type { RedisSessionOwnership } from './redis-session-ownership.js';

const SESSION = '3c9e1f2a-5b4d-4c6e-9f8a-1b2c3d4e5f60';
const LEASE_MS = 60_000;

/**
 * A load whose lease another node takes while it reads the session (chaos
 * SEED=6151 schedule 12: node n1 stopped at its ledger append, n3 claimed, n1's
 * renewal found the lease lost before the load finished). The loss closes
 * nothing (the session is not live yet); the load must not make it live
 * afterwards, or it answers reads with no lease whenever Redis names no owner.
 */
(HAS_REDIS ? describe : describe.skip)('a lease lost while a load starts the session (real redis-server)', () => {
  let redis: RedisProcess;
  let admin: Redis;
  let dir: string;
  let clock: ManualClock;
  let module: TestingModule | undefined;
  const ownerships: RedisSessionOwnership[] = [];

  const ownershipOf = async (nodeId: string): Promise<RedisSessionOwnership> => {
    const { ownership } = await redisOwnership({ redisUrl: redis.url, nodeId, leaseMs: LEASE_MS, dataDir: dir, clock });
    ownerships.push(ownership);
    return ownership;
  };

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
    dir = tempDir();
    clock = new ManualClock(0);
    const chats = chatsDir(dir, dir);
    mkdirSync(chats, { recursive: true });
    writeFileSync(join(chats, `${SESSION}.jsonl`), '');
  });
  afterEach(async () => {
    await module?.close();
    module = undefined;
    for (const ownership of ownerships.splice(0)) {
      await ownership.release(SESSION);
      await ownership.onApplicationShutdown();
    }
  });

  it('fails 503 cluster_unavailable and leaves the session live nowhere on this node', async () => {
    const a = await ownershipOf('node-a');
    const runtime = RuntimeModule.forRoot({
      workspaces: [dir],
      dataDir: dir,
      engine: { useValue: new ScriptedEngine() },
      ownership: { useValue: a },
      imports: [ownershipPorts(a)],
    });
    module = await Test.createTestingModule({ imports: [runtime, TurnsModule.forRoot({ imports: [runtime] })] }).compile();
    await module.init();
    const sessions = module.get(SessionsService);
    const recorder = module.get(ChatRecordingService);
    // The load's start, held right after its claim (where n1 stopped): node-a holds the lease.
    const reached = deferred<void>();
    const resume = deferred<void>();
    const attach = recorder.attach.bind(recorder);
    jest.spyOn(recorder, 'attach').mockImplementation(async (id, cwd) => (reached.resolve(), await resume.promise, attach(id, cwd)));
    const loading = sessions.load(SESSION).then(
      () => 'live',
      (error: { code?: string }) => error.code,
    );
    await reached.promise;
    expect(await admin.hget(`turns:lease:${SESSION}`, 'node')).toBe('node-a');

    // node-a's lease expires unrenewed (it is stopped), node-b claims; node-a's renewal then finds the lease taken.
    await admin.del(`turns:lease:${SESSION}`);
    const b = await ownershipOf('node-b');
    await b.claim(SESSION);
    clock.time += LEASE_MS / 3;
    await a.tick();
    expect(a.holds(SESSION)).toBe(false);

    resume.resolve();
    expect(await loading).toBe('cluster_unavailable');
    expect(() => sessions.require(SESSION)).toThrow(expect.objectContaining({ code: 'session_not_found' }));
    expect(await admin.hget(`turns:lease:${SESSION}`, 'node')).toBe('node-b');
  });
});
