import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { SessionEventBus } from '../src/events/session-event-bus.js';
import { IdleSessionReaper } from '../src/sessions/idle-session-reaper.js';
import { eventually } from './support/eventually.js';
import { ManualClock } from './support/manual-clock.js';
import { waitForTurn } from './support/poll.js';
import { sampleValue } from './support/prometheus.js';
import { HAS_REDIS, startRedis, type RedisProcess } from './support/redis-server.js';
import { ADAPTERS, startDaemon, tempDir, type Adapter, type TestDaemon } from './support/test-daemon.js';

const TIMEOUT_MS = 60_000;

/** The lines the reaper logs, captured until restored. */
function captureReaperLog() {
  const lines: string[] = [];
  const spy = jest.spyOn(Logger.prototype, 'log').mockImplementation(function (this: Logger, message: unknown) {
    if ((this as unknown as { context?: string }).context === 'IdleSessionReaper') lines.push(String(message));
  });
  return { lines, restore: () => spy.mockRestore() };
}

/** Opens the session's event stream and holds it until the returned function is called. */
async function watch(daemon: TestDaemon, sessionId: string): Promise<() => void> {
  const abort = new AbortController();
  const res = await fetch(`${daemon.url}/session/${sessionId}/events`, { signal: abort.signal });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  await reader.read(); // the stream is open: its first frame came
  return () => {
    abort.abort();
    reader.cancel().catch(() => undefined);
  };
}

/**
 * Idle sessions reaped as `qwen serve` reaps them (TURNS_SESSION_IDLE_TIMEOUT_MS), on the spec's clock: the
 * reaper's pass is run by hand once the clock has moved, so no case waits for a timer.
 */
describe.each(ADAPTERS)('idle sessions reaped (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  let clock: ManualClock;
  let reaper: IdleSessionReaper;

  beforeEach(async () => {
    clock = new ManualClock(1_796_000_000_000);
    daemon = await startDaemon({ httpAdapter, sessionIdleTimeoutMs: TIMEOUT_MS }, { clock });
    reaper = daemon.app.get(IdleSessionReaper);
  });
  afterEach(() => daemon.close(true));

  it('closes the idle one, keeps the watched, heartbeated, busy and waiting ones; the reaped one loads again with its turns', async () => {
    const idle = await daemon.createSession({ sessionScope: 'thread' });
    const watched = await daemon.createSession({ sessionScope: 'thread' });
    const heartbeated = await daemon.createSession({ sessionScope: 'thread' });
    const busy = await daemon.createSession({ sessionScope: 'thread' });
    const waiting = await daemon.createSession({ sessionScope: 'thread' });

    // The idle one had a turn before it went quiet.
    const answered = await daemon.prompt(idle.sessionId, 'remember me');
    const first = await daemon.engine.nextTurn();
    first.say('remembered');
    first.finish();
    await waitForTurn(daemon, idle.sessionId, answered, 5_000, 10);

    await daemon.prompt(busy.sessionId, 'a long one');
    const running = await daemon.engine.nextTurn();
    const asking = daemon.prompt(waiting.sessionId, 'rm it');
    const held = await daemon.engine.nextTurn();
    await asking;
    void held.askPermission('rm -rf build');
    await eventually(async () => {
      const res = await daemon.http.get(`/session/${waiting.sessionId}/status`);
      return res.body.isWaitingForPermission ? true : undefined;
    });
    const unwatch = await watch(daemon, watched.sessionId);
    await eventually(() => (daemon.app.get(SessionEventBus).streamsOf(watched.sessionId).open === 1 ? true : undefined));

    clock.time += TIMEOUT_MS - 20_000;
    await daemon.http.post(`/session/${heartbeated.sessionId}/heartbeat`).set('X-Qwen-Client-Id', heartbeated.clientId).expect(200);
    // Not yet: nobody has been idle for the whole timeout.
    expect(await reaper.reapIdle()).toEqual([]);

    clock.time += 20_000;
    const log = captureReaperLog();
    let reaped: string[];
    try {
      reaped = await reaper.reapIdle();
    } finally {
      log.restore();
    }
    expect(reaped).toEqual([idle.sessionId]);
    expect(log.lines).toEqual([expect.stringContaining(`session ${idle.sessionId} closed: idle for ${TIMEOUT_MS} ms`)]);
    const scrape = (await daemon.http.get('/metrics').expect(200)).text;
    expect(sampleValue(scrape, 'turns_sessions_reaped_total')).toBe(1);
    expect(sampleValue(scrape, 'turns_sessions_live')).toBe(4);

    // Closed as DELETE closes it: its routes answer 404, its transcript and ledger stay.
    await daemon.http.get(`/session/${idle.sessionId}/turns/current`).expect(404);
    const loaded = await daemon.http.post(`/session/${idle.sessionId}/load`).expect(200);
    expect(loaded.body).toMatchObject({ sessionId: idle.sessionId, attached: false });
    const turn = await daemon.http.get(`/session/${idle.sessionId}/turns/${answered}`).expect(200);
    expect(turn.body).toMatchObject({ state: 'completed', resultText: 'remembered' });

    // What kept the others was their activity: once it ends and the timeout passes again, they go too.
    unwatch();
    await eventually(() => (daemon.app.get(SessionEventBus).streamsOf(watched.sessionId).open === 0 ? true : undefined));
    running.finish();
    await daemon.http.post(`/session/${waiting.sessionId}/cancel`).expect(204);
    await eventually(async () => ((await daemon.http.get(`/session/${busy.sessionId}/status`)).body.hasActivePrompt ? undefined : true));
    await eventually(async () => ((await daemon.http.get(`/session/${waiting.sessionId}/status`)).body.hasActivePrompt ? undefined : true));
    clock.time += TIMEOUT_MS;
    expect((await reaper.reapIdle()).sort()).toEqual(
      [idle.sessionId, watched.sessionId, heartbeated.sessionId, busy.sessionId, waiting.sessionId].sort(),
    );
    const status = await daemon.http.get('/daemon/status').expect(200);
    expect(status.body.sessions).toEqual({ live: 0 });
  });

  it('a heartbeat, an event or a stream that just ended counts from then', async () => {
    const { sessionId } = await daemon.createSession({ sessionScope: 'thread' });
    clock.time += TIMEOUT_MS - 1;
    const unwatch = await watch(daemon, sessionId);
    unwatch();
    await eventually(() => (daemon.app.get(SessionEventBus).streamsOf(sessionId).open === 0 ? true : undefined));
    clock.time += TIMEOUT_MS - 1;
    expect(await reaper.reapIdle()).toEqual([]);
    clock.time += 1;
    expect(await reaper.reapIdle()).toEqual([sessionId]);
  });

  it('a client attaching counts from then, as a heartbeat does', async () => {
    const { sessionId } = await daemon.createSession({ sessionScope: 'thread' });
    clock.time += TIMEOUT_MS - 1;
    const attached = await daemon.createSession({ sessionId });
    expect(attached.sessionId).toBe(sessionId);
    clock.time += TIMEOUT_MS - 1;
    expect(await reaper.reapIdle()).toEqual([]);
    clock.time += 1;
    expect(await reaper.reapIdle()).toEqual([sessionId]);
  });
});

describe('no idle timeout', () => {
  it('0 never reaps', async () => {
    const clock = new ManualClock(1_796_000_000_000);
    const daemon = await startDaemon({ sessionIdleTimeoutMs: 0 }, { clock });
    try {
      const { sessionId } = await daemon.createSession();
      clock.time += 365 * 24 * 3_600_000;
      expect(await daemon.app.get(IdleSessionReaper).reapIdle()).toEqual([]);
      await daemon.http.get(`/session/${sessionId}/turns/current`).expect(200);
    } finally {
      await daemon.close(true);
    }
  });
});

/** Two nodes in this process on a real redis-server, each on its own clock: only the owner reaps, and lets go. */
const PAIRS: Array<[Adapter, Adapter]> = [
  ['express', 'fastify'],
  ['fastify', 'express'],
];
(HAS_REDIS ? describe.each(PAIRS) : describe.skip.each(PAIRS))('idle sessions in a cluster (%s owner, %s other)', (adapterA, adapterB) => {
  let redis: RedisProcess;
  let admin: Redis;
  let a: TestDaemon;
  let b: TestDaemon;
  const clockA = new ManualClock(1_796_000_000_000);
  const clockB = new ManualClock(1_796_000_000_000);

  beforeEach(async () => {
    redis = await startRedis();
    admin = new Redis(redis.url);
    const dataDir = tempDir();
    const node = (nodeId: string, httpAdapter: Adapter, clock: ManualClock) =>
      startDaemon(
        { httpAdapter, dataDir, workspaces: [dataDir], redisUrl: redis.url, nodeId, leaseMs: 60_000, sessionIdleTimeoutMs: TIMEOUT_MS },
        { clock },
      );
    a = await node('node-a', adapterA, clockA);
    b = await node('node-b', adapterB, clockB);
  });
  afterEach(async () => {
    await b?.close();
    await a?.close(true);
    await admin?.quit();
    await redis?.kill();
  });

  it('the owner reaps and releases the lease; the other node then loads it with its turns', async () => {
    const { sessionId } = await a.createSession({ sessionScope: 'thread' });
    const promptId = await a.prompt(sessionId, 'on a');
    const turn = await a.engine.nextTurn();
    turn.say('answered on a');
    turn.finish();
    await waitForTurn(a, sessionId, promptId, 5_000, 10);
    expect(await admin.exists(`turns:lease:${sessionId}`)).toBe(1);

    clockA.time += TIMEOUT_MS;
    clockB.time += TIMEOUT_MS;
    // B does not own it: nothing of it is live there to reap.
    expect(await b.app.get(IdleSessionReaper).reapIdle()).toEqual([]);
    expect(await admin.exists(`turns:lease:${sessionId}`)).toBe(1);
    expect(await a.app.get(IdleSessionReaper).reapIdle()).toEqual([sessionId]);
    expect(await admin.exists(`turns:lease:${sessionId}`)).toBe(0);

    const loaded = await b.http.post(`/session/${sessionId}/load`).expect(200);
    expect(loaded.headers['x-turns-node']).toBe('node-b');
    const found = await b.http.get(`/session/${sessionId}/turns/${promptId}`).expect(200);
    expect(found.body).toMatchObject({ state: 'completed', resultText: 'answered on a' });
  });
});
