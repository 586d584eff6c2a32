import { SessionsService } from '../src/sessions/sessions.service.js';
import { JsonlTranscriptScanService } from '../src/transcript/jsonl-transcript-scan.service.js';
import { deferred } from './support/deferred.js';
import { ADAPTERS, startDaemon, tempDir, type TestDaemon } from './support/test-daemon.js';

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
    const transcript = daemon.app.get(JsonlTranscriptScanService);
    const read = transcript.findTurnResult.bind(transcript);
    const reading = deferred<void>();
    const release = deferred<void>();
    const held = jest.spyOn(transcript, 'findTurnResult').mockImplementationOnce(async (...args) => {
      reading.resolve();
      await release.promise;
      return read(...args);
    });

    const poll = daemon.http.get(`/session/${sessionId}/turns/${promptId}`).then((res) => res);
    await reading.promise;
    await daemon.app.get(SessionsService).evict(sessionId); // the whole teardown: transcript and ledger let go
    release.resolve();
    const answer = await poll;
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ error: 'Session not found', code: 'session_not_found', sessionId });
    held.mockRestore();

    // The prompt was never unknown: loaded again, the ledger answers it.
    await daemon.http.post(`/session/${sessionId}/load`).expect(200);
    const settled = await daemon.http.get(`/session/${sessionId}/turns/${promptId}`).expect(200);
    expect(settled.body).toMatchObject({ sessionId, promptId, state: 'cancelled' });
  });
});
