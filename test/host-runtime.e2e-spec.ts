import { Test } from '@nestjs/testing';
import request from 'supertest';
import { AppModule } from '../docs/examples/host-runtime/app.module.js';
import { HostAgent } from '../docs/examples/host-runtime/host-agent.js';
import { HostBridge } from '../docs/examples/host-runtime/host-bridge.js';
import { HostRuntime } from '../docs/examples/host-runtime/host-runtime.js';
import { HostTranscriptScan } from '../docs/examples/host-runtime/host-transcript-scan.js';
import { TranscriptScanService, TurnsModule, TurnStatusService, type MaybePromise, type SettledTurnStatus } from '../src/index.js';
import { createTurnsTestingApp } from '../src/testing/index.js';
import { deferred, settle } from './support/deferred.js';
import { ADAPTERS } from './support/test-daemon.js';

/**
 * The example host runtime of docs/examples/host-runtime: a runtime of its own, whose ports inject it.
 * First the overlay's rules, proven against the bridge a host writes (the reference runtime's are in
 * src/bridge and src/turns), with the agent and the transcript scan held by the test; then the example
 * served over HTTP, mounted as docs/mounting.md shows.
 */

/** An agent whose every answer waits for the test. */
class HeldAgent extends HostAgent {
  readonly replies = new Map<string, ReturnType<typeof deferred<string>>>();
  reply(text: string): Promise<string> {
    const answer = deferred<string>();
    this.replies.set(text, answer);
    return answer.promise;
  }
}

/** The host's own scan, each answer held until the test releases it (read when asked: a snapshot, as a real transcript's). */
class HeldScan extends TranscriptScanService {
  readonly calls: Array<() => void> = [];
  constructor(private readonly transcript: TranscriptScanService) {
    super();
  }
  findTurnResult(sessionId: string, promptId: string): Promise<SettledTurnStatus | undefined> {
    return this.held(() => this.transcript.findTurnResult(sessionId, promptId));
  }
  findNewestTurnResult(sessionId: string): Promise<SettledTurnStatus | undefined> {
    return this.held(() => this.transcript.findNewestTurnResult(sessionId));
  }
  /** Answers the oldest held scan. */
  release(): void {
    this.calls.shift()!();
  }
  private held<T>(read: () => MaybePromise<T>): Promise<T> {
    const gate = deferred<void>();
    this.calls.push(() => gate.resolve());
    const snapshot = read();
    return gate.promise.then(() => snapshot);
  }
}

describe("the overlay's rules against a host's bridge (docs/examples/host-runtime)", () => {
  let agent: HeldAgent;
  let runtime: HostRuntime;
  let scan: HeldScan;
  let turns: TurnStatusService;
  let session: string;

  beforeEach(() => {
    agent = new HeldAgent();
    runtime = new HostRuntime(agent);
    scan = new HeldScan(new HostTranscriptScan(runtime));
    turns = new TurnStatusService(new HostBridge(runtime), scan);
    session = runtime.openSession(['c1']);
  });

  /** The agent answers `text`'s prompt; the runtime's callbacks run. */
  const answer = async (text: string, resultText = `answer ${text}`) => {
    agent.replies.get(text)!.resolve(resultText);
    await settle();
  };

  it('first writer: the deadline’s error stays published when the agent answers late; the poll then merges the persisted answer', async () => {
    const slow = runtime.admit(session, 'slow');
    const next = runtime.admit(session, 'next');
    runtime.expire(session, slow);
    expect(turns.peek(session, next)).toMatchObject({ state: 'running' }); // the FIFO moved on
    await answer('slow', 'done at last');
    // The late answer changed nothing in memory: not the overlay, not the prompt now running.
    expect(runtime.overlay.get(session, slow)).toMatchObject({ status: { state: 'error', error: { code: 'prompt_deadline_exceeded' } } });
    expect(turns.peek(session)).toMatchObject({ promptId: next, state: 'running' });

    const poll = turns.getTurn(session, slow);
    scan.release();
    // docs/turn-routes.md's deadline path: the persisted outcome supersedes the bridge's error, keeping queuedAt.
    const merged = await poll;
    expect(merged).toMatchObject({ promptId: slow, state: 'completed', resultText: 'done at last', queuedAt: expect.any(Number) });
    expect(merged).not.toHaveProperty('error');
    expect(turns.peek(session, slow)).toBe(merged); // written back: from memory from now on
    expect(scan.calls).toHaveLength(0);
  });

  it('no regression: a poll decides after its awaited scan, from a fresh read of the live view and the overlay', async () => {
    const a = runtime.admit(session, 'a');
    await answer('a');
    const current = turns.getCurrent(session); // the overlay's newest (a) is not combined yet: it scans
    const b = runtime.admit(session, 'b'); // starts while the scan is in flight
    scan.release();
    await expect(current).resolves.toMatchObject({ promptId: b, state: 'running' });

    const exact = turns.getTurn(session, a);
    await answer('b'); // b settles during a's scan
    scan.release();
    await expect(exact).resolves.toMatchObject({ promptId: a, state: 'completed', resultText: 'answer a' });
    const after = turns.getCurrent(session);
    scan.release();
    await expect(after).resolves.toMatchObject({ promptId: b, state: 'completed' });
  });

  it('write-back: an exact poll of an older prompt is served from memory after, and never becomes the current answer', async () => {
    const a = runtime.admit(session, 'a');
    await answer('a');
    const b = runtime.admit(session, 'b');
    await answer('b');
    const exact = turns.getTurn(session, a);
    scan.release();
    await expect(exact).resolves.toMatchObject({ promptId: a, resultText: 'answer a' });
    expect(runtime.overlay.get(session, a)?.combined).toBe(true);
    expect(runtime.overlay.newest(session)?.status.promptId).toBe(b);
    await expect(turns.getTurn(session, a)).resolves.toMatchObject({ promptId: a }); // no scan held: from memory
    const current = turns.getCurrent(session);
    scan.release();
    await expect(current).resolves.toMatchObject({ promptId: b, resultText: 'answer b' });
    expect(turns.peek(session)).toMatchObject({ promptId: b }); // steady state: current from memory too
  });

  it('writes nothing back for a session that closed during the scan', async () => {
    const a = runtime.admit(session, 'a');
    await answer('a');
    const exact = turns.getTurn(session, a);
    runtime.closeSession(session);
    scan.release();
    await expect(exact).resolves.toMatchObject({ promptId: a, resultText: 'answer a' }); // what the transcript said
    expect(runtime.overlay.entries(session)).toEqual([]);
  });
});

describe.each(ADAPTERS)('the example host app, mounted as docs/mounting.md shows (%s)', (adapter) => {
  it('answers the turn routes from its own runtime, held polls included', async () => {
    const { app } = await createTurnsTestingApp({ adapter, imports: [AppModule] });
    try {
      const http = request(app.getHttpServer());
      const { sessionId, clientId } = (await http.post('/session').expect(200)).body as { sessionId: string; clientId: string };
      const { promptId } = (
        await http.post(`/session/${sessionId}/prompt`).set('X-Qwen-Client-Id', clientId).send({ text: 'hi' }).expect(202)
      ).body as { promptId: string };
      const done = await http.get(`/session/${sessionId}/turns/${promptId}?waitMs=5000`).set('X-Qwen-Client-Id', clientId).expect(200);
      expect(done.body).toMatchObject({ sessionId, promptId, state: 'completed', promptText: 'hi', resultText: 'echo: hi' });
      // The originator reads its own id (docs/security.md#client-ids-are-capabilities): the same bytes, the same ETag.
      await http
        .get(`/session/${sessionId}/turns/current`)
        .set('X-Qwen-Client-Id', clientId)
        .set('If-None-Match', done.headers.etag!)
        .expect(304);
      const list = await http.get(`/session/${sessionId}/turns`).set('X-Qwen-Client-Id', clientId).expect(200);
      expect(list.body).toEqual({ turns: [done.body] });
      await http.post(`/session/${sessionId}/prompt`).set('X-Qwen-Client-Id', 'someone-else').send({ text: 'x' }).expect(400);
      await http.get('/session/unknown/turns/current').expect(404);
      expect(app.get(HostRuntime).session(sessionId)?.records).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});

it('cannot mount ports that inject the runtime by class alone: Nest names the missing runtime', async () => {
  const moduleRef = Test.createTestingModule({
    imports: [TurnsModule.forRoot({ bridgeOverlay: HostBridge, transcriptScan: HostTranscriptScan })],
  });
  await expect(moduleRef.compile()).rejects.toThrow(/HostRuntime/);
});
