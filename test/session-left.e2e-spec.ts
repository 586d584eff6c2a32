import { Redis } from 'ioredis';
import { SessionRegistry } from '../src/sessions/session-registry.js';
import { SessionsService } from '../src/sessions/sessions.service.js';
import { JsonlTranscriptScanService } from '../src/transcript/jsonl-transcript-scan.service.js';
import { deferred } from './support/deferred.js';
import { HAS_REDIS, startRedis, type RedisProcess } from './support/redis-server.js';
import { ADAPTERS, startDaemon, tempDir, type Adapter, type TestDaemon } from './support/test-daemon.js';

/** Holds the next transcript read of a daemon's polls until `release`; `reading` resolves once it began. */
function holdNextScan(daemon: TestDaemon) {
  const transcript = daemon.app.get(JsonlTranscriptScanService);
  const read = transcript.findTurnResult.bind(transcript);
  const reading = deferred<void>();
  const release = deferred<void>();
  const spy = jest.spyOn(transcript, 'findTurnResult').mockImplementationOnce(async (...args) => {
    reading.resolve();
    await release.promise;
    return read(...args);
  });
  return { reading: reading.promise, release: () => release.resolve(), restore: () => spy.mockRestore() };
}

/**
 * A poll whose scan is under way when its session leaves the node (chaos SEED=6151 schedule 5: n2, stopped in a
 * write, woke to find its lease taken and closed the session while a poll of a prompt only the ledger knew was
 * reading; the poll answered 404 prompt_not_found). The daemon runs as users run it; the loss is the one
 * `SessionsService.evict` a cluster's lease loss calls, and the scan is held by a controlled promise.
 */
describe.each(ADAPTERS)('a session that leaves the node while a poll reads (%s)', (httpAdapter) => {
  let dataDir: string;
  let daemon: TestDaemon;

  beforeEach(() => {
    dataDir = tempDir();
  });
  afterEach(() => daemon.close(true));

  /** A prompt whose only outcome is its ledger terminal: removed while queued, then the daemon restarted. */
  async function ledgerOnlyPrompt(): Promise<{ sessionId: string; promptId: string }> {
    daemon = await startDaemon({ httpAdapter, dataDir });
    const { sessionId } = await daemon.createSession();
    await daemon.prompt(sessionId, 'running');
    const promptId = await daemon.prompt(sessionId, 'removed');
    await daemon.engine.nextTurn();
    await daemon.http.delete(`/session/${sessionId}/pending-prompts/${promptId}`).expect(200, { removed: true });
    await daemon.close();
    daemon = await startDaemon({ httpAdapter, dataDir });
    await daemon.http.post(`/session/${sessionId}/load`).expect(200);
    return { sessionId, promptId };
  }

  it('answers 404 session_not_found, never prompt_not_found for a prompt the ledger settled; a load then answers it', async () => {
    const { sessionId, promptId } = await ledgerOnlyPrompt();
    const scan = holdNextScan(daemon);
    const poll = daemon.http.get(`/session/${sessionId}/turns/${promptId}`).then((res) => res);
    await scan.reading;
    await daemon.app.get(SessionsService).evict(sessionId); // the whole teardown: transcript and ledger let go
    scan.release();
    const answer = await poll;
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ error: 'Session not found', code: 'session_not_found', sessionId });
    scan.restore();

    // The prompt was never unknown: loaded again, the ledger answers it.
    await daemon.http.post(`/session/${sessionId}/load`).expect(200);
    const settled = await daemon.http.get(`/session/${sessionId}/turns/${promptId}`).expect(200);
    expect(settled.body).toMatchObject({ sessionId, promptId, state: 'cancelled' });
  });
});

/**
 * The same across two nodes on a real redis-server (in this process, so a poll's scan can be held): the poll on
 * the owner A is reading when B loads the session and A lets it go; then A's answer, and the prompt through A.
 */
const PAIRS: Array<[Adapter, Adapter]> = [
  ['express', 'fastify'],
  ['fastify', 'express'],
];
(HAS_REDIS ? describe.each(PAIRS) : describe.skip.each(PAIRS))(
  'a poll on a node that loses the session to another (%s, %s)',
  (adapterA, adapterB) => {
    let redis: RedisProcess;
    let admin: Redis;
    let a: TestDaemon;
    let b: TestDaemon;

    /** Moves the session to `node`: its lease gone (an eviction), a load there claims it and has the owner let go. */
    async function moveTo(node: TestDaemon, sessionId: string): Promise<void> {
      await admin.del(`turns:lease:${sessionId}`);
      const loaded = await node.http.post(`/session/${sessionId}/load`).expect(200);
      expect(loaded.headers['x-turns-node']).toBe(node === a ? 'node-a' : 'node-b');
    }

    beforeEach(async () => {
      redis = await startRedis();
      admin = new Redis(redis.url);
      const dataDir = tempDir();
      // Leases long enough that no renewal runs during a case: the session moves only by loads.
      const node = (nodeId: string, httpAdapter: Adapter) =>
        startDaemon({ httpAdapter, dataDir, workspaces: [dataDir], redisUrl: redis.url, nodeId, leaseMs: 60_000, forwardTimeoutMs: 2_000 });
      a = await node('node-a', adapterA);
      b = await node('node-b', adapterB);
    });
    afterEach(async () => {
      await b?.close();
      await a?.close(true);
      await admin?.quit();
      await redis?.kill();
    });

    it('answers 404 session_not_found, not prompt_not_found, and the prompt is answered through A after', async () => {
      const { sessionId } = await a.createSession({ sessionScope: 'thread' });
      await a.prompt(sessionId, 'running');
      const promptId = await a.prompt(sessionId, 'removed');
      await a.engine.nextTurn();
      await a.http.delete(`/session/${sessionId}/pending-prompts/${promptId}`).expect(200, { removed: true });
      // To B and back: A holds the session again, and the removed prompt only in its ledger.
      await moveTo(b, sessionId);
      await moveTo(a, sessionId);

      const scan = holdNextScan(a);
      const poll = a.http.get(`/session/${sessionId}/turns/${promptId}`).then((res) => res);
      await scan.reading;
      await moveTo(b, sessionId); // A is asked to let go, and does
      expect(a.app.get(SessionRegistry).hasSession(sessionId)).toBe(false);
      scan.release();
      const answer = await poll;
      expect({ status: answer.status, body: answer.body }).toEqual({
        status: 404,
        body: { error: 'Session not found', code: 'session_not_found', sessionId },
      });
      scan.restore();

      const settled = await a.http.get(`/session/${sessionId}/turns/${promptId}`).expect(200);
      expect(settled.headers['x-turns-node']).toBe('node-b');
      expect(settled.body).toMatchObject({ sessionId, promptId, state: 'cancelled' });
    });
  },
);
