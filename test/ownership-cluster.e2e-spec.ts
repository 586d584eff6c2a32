import { eventually } from './support/eventually.js';
import { HAS_REDIS, startRedis, type RedisProcess } from './support/redis-server.js';
import { startDaemon, tempDir, type TestDaemon } from './support/test-daemon.js';
import { bearer, writeTokensFile } from './support/test-principals.js';

const LEASE_MS = 1_500;

/**
 * Two nodes (Express and Fastify) in this process on one real redis-server,
 * one data dir and one tokens file. A forwarded request keeps its principal:
 * forwarding passes the bearer token on as sent, and the owner node decides
 * with the principal it proves there.
 */
(HAS_REDIS ? describe : describe.skip)('ownership in cluster mode (redis-server + 2 nodes)', () => {
  jest.setTimeout(30_000);
  let redis: RedisProcess;
  let dataDir: string;
  let a: TestDaemon | undefined;
  let b: TestDaemon;
  let tokensFile: string;

  const node = (nodeId: string, httpAdapter: 'express' | 'fastify') =>
    startDaemon({ dataDir, workspaces: [dataDir], redisUrl: redis.url, nodeId, leaseMs: LEASE_MS, httpAdapter, tokensFile });

  beforeAll(async () => {
    redis = await startRedis();
    dataDir = tempDir('turns-owner-cluster-');
    tokensFile = writeTokensFile(dataDir);
    a = await node('node-a', 'express');
    b = await node('node-b', 'fastify');
  });

  afterAll(async () => {
    await a?.close();
    await b?.close(true);
    await redis?.kill();
  });

  it('answers another principal 404 through any node, and keeps the owner when the session fails over', async () => {
    const { sessionId } = (await a!.http.post('/session').set(bearer('alice')).send({ sessionScope: 'thread' }).expect(200)).body;
    const { promptId } = (
      await a!.http
        .post(`/session/${sessionId}/prompt`)
        .set(bearer('alice'))
        .send({ prompt: [{ type: 'text', text: 'hi' }] })
        .expect(202)
    ).body;
    const turn = await a!.engine.nextTurn();
    turn.say('done');
    turn.finish();
    const poll = (daemon: TestDaemon, principal: 'alice' | 'bob' | 'root') =>
      daemon.http.get(`/session/${sessionId}/turns/${promptId}`).set(bearer(principal));
    await eventually(async () => ((await poll(a!, 'alice')).body.state === 'completed' ? true : undefined));

    // Through node b, forwarded to the owner a: the principal travels with the request.
    const forwarded = await poll(b, 'alice');
    expect([forwarded.status, forwarded.headers['x-turns-node'], forwarded.body.state]).toEqual([200, 'node-a', 'completed']);
    const refused = await poll(b, 'bob');
    expect([refused.status, refused.body]).toEqual([404, { error: expect.any(String), code: 'session_not_found', sessionId }]);
    expect(refused.headers['x-turns-node']).toBe('node-a');

    // Node a goes away; node b takes the session over from the shared data dir, and with it the owner.
    await a!.close();
    a = undefined;
    const stolen = await b.http.post(`/session/${sessionId}/load`).set(bearer('bob')).send({});
    expect([stolen.status, stolen.body.code]).toEqual([404, 'session_not_found']);
    const loaded = await eventually(async () => {
      const res = await b.http.post(`/session/${sessionId}/load`).set(bearer('alice')).send({});
      return res.status === 200 ? res : undefined;
    });
    expect(loaded.headers['x-turns-node']).toBe('node-b');
    expect((await poll(b, 'alice')).status).toBe(200);
    expect((await poll(b, 'bob')).body.code).toBe('session_not_found');
    expect((await poll(b, 'root')).status).toBe(200);
  });
});
