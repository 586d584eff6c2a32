import { pollTurn } from './support/poll.js';
import { ADAPTERS, startDaemon, type TestDaemon } from './support/test-daemon.js';

// The edges a fuzzing run of the daemon found (issue 17), on both adapters.

describe.each(ADAPTERS)('a memory-only result outlives other clients reading old prompts (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startDaemon({ httpAdapter, maxPendingPrompts: 200 });
  });
  afterAll(() => daemon.close(true));

  it('answers B, removed while queued, after the 80 oldest of 100 prompts are polled; published ones keep queuedAt', async () => {
    const { sessionId, clientId } = await daemon.createSession();
    const turn = (promptId: string) => daemon.http.get(`/session/${sessionId}/turns/${promptId}`).set('X-Qwen-Client-Id', clientId);
    const old: string[] = [];
    for (let i = 0; i < 100; i += 1) old.push(await daemon.prompt(sessionId, `p${i}`, clientId));
    const a = await daemon.prompt(sessionId, 'A', clientId);
    const b = await daemon.prompt(sessionId, 'B', clientId);
    for (let i = 0; i < 100; i += 1) (await daemon.engine.nextTurn()).finish();
    const running = await daemon.engine.nextTurn(); // A
    const removed = await daemon.http.delete(`/session/${sessionId}/pending-prompts/${b}`).set('X-Qwen-Client-Id', clientId);
    expect(removed.body).toEqual({ removed: true });
    running.finish();
    expect((await pollTurn(daemon, sessionId, a)).state).toBe('completed');

    for (const promptId of old.slice(0, 80)) expect((await turn(promptId).expect(200)).body.state).toBe('completed');

    const answer = await turn(b);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ state: 'cancelled', promptId: b, queuedAt: expect.any(Number) });
    // The 62 newest of the 100 were still published when the polls began: read back, they keep queuedAt.
    for (const promptId of old.slice(38)) expect((await turn(promptId).expect(200)).body.queuedAt).toEqual(expect.any(Number));
  });
});
