import { readFileSync } from 'node:fs';
import { PromptLedger } from '../src/ledger/prompt-ledger.js';
import { chatsDir } from '../src/transcript/transcript-paths.js';
import { HAS_REDIS, startRedis, type RedisProcess } from './support/redis-server.js';
import { ADAPTERS, startDaemon, tempDir, type TestDaemon } from './support/test-daemon.js';

/**
 * The ownership ports as a daemon binds them (docs/cluster.md#ownership-ports): a cluster node's status, metrics and
 * ledger lines read its ClusterView and SessionWriteFence; a single daemon has no cluster block, series or fence.
 */
(HAS_REDIS ? describe : describe.skip).each(ADAPTERS)('the ownership ports in a daemon (%s)', (httpAdapter) => {
  jest.setTimeout(30_000);
  let redis: RedisProcess;
  let node: TestDaemon;
  let single: TestDaemon;

  beforeAll(async () => {
    redis = await startRedis();
    const dataDir = tempDir('turns-ports-');
    node = await startDaemon({ dataDir, workspaces: [dataDir], redisUrl: redis.url, nodeId: 'node-a', httpAdapter });
    single = await startDaemon({ httpAdapter });
  });
  afterAll(async () => {
    await node?.close(true);
    await single?.close(true);
    await redis?.kill();
  });

  /** A session with one completed prompt; its ledger's lines. */
  async function promptedSession(daemon: TestDaemon): Promise<{ ledger: Array<Record<string, unknown>> }> {
    const { sessionId, clientId } = await daemon.createSession();
    const promptId = await daemon.prompt(sessionId, 'hi', clientId);
    const turn = await daemon.engine.nextTurn();
    turn.finish();
    await daemon.http.get(`/session/${sessionId}/turns/${promptId}?waitMs=5000`).expect(200);
    // The poll answers from the settled status; the ledger's terminal line is appended beside it: wait for the append.
    await daemon.app.get(PromptLedger).flush(sessionId);
    const path = `${chatsDir(daemon.config.dataDir, daemon.config.dataDir)}/${sessionId}.ledger.jsonl`;
    const ledger = readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    return { ledger };
  }

  it("a cluster node: its status, readiness and metrics read the node's cluster state, and its ledger lines carry the fence", async () => {
    const { ledger } = await promptedSession(node);
    expect(ledger.filter((line) => 'promptId' in line).map((line) => line.fence)).toEqual([expect.any(Number), expect.any(Number)]);
    const status = (await node.http.get('/daemon/status').expect(200)).body;
    expect(status).toMatchObject({ status: 'ok', cluster: { nodeId: 'node-a', redis: 'up', leases: 1 } });
    await node.http.get('/health/ready').expect(200);
    const metrics = (await node.http.get('/metrics').expect(200)).text;
    expect(metrics).toMatch(/^turns_cluster_leases 1$/m);
    expect(metrics).toMatch(/^turns_cluster_redis_up 1$/m);
  });

  it('a single daemon: no cluster block, no cluster series, no fence on its lines', async () => {
    const { ledger } = await promptedSession(single);
    expect(ledger.length).toBeGreaterThan(0);
    expect(ledger.some((line) => 'fence' in line)).toBe(false);
    const status = (await single.http.get('/daemon/status').expect(200)).body;
    expect(status.status).toBe('ok');
    expect(status).not.toHaveProperty('cluster');
    expect((await single.http.get('/metrics').expect(200)).text).not.toMatch(/^turns_cluster_/m);
  });
});
