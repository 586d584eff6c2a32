import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AcpEngine } from '../src/acp/acp.engine.js';
import { ChatRecordingService } from '../src/transcript/chat-recording.service.js';
import { waitForTurn } from './support/poll.js';
import { startDaemon, type TestDaemon } from './support/test-daemon.js';

const FIXTURE = `node ${join(__dirname, 'fixtures', 'acp-fixture-agent.mjs')}`;

describe('ACP engine against a real agent process', () => {
  let daemon: TestDaemon;
  let sessionId: string;

  beforeAll(async () => {
    daemon = await startDaemon({ agent: 'acp', agentCommand: FIXTURE }, { engine: new AcpEngine(FIXTURE) });
    ({ sessionId } = await daemon.createSession());
  });
  afterAll(() => daemon.close(true));

  /** A real process runs at its own pace: wait on a time budget, not a count of event-loop turns. */
  const settled = (promptId: string) => waitForTurn(daemon, sessionId, promptId, 20_000, 20);

  it('completes with the final answer only, and records it in turn_result', async () => {
    const promptId = await daemon.prompt(sessionId, 'tools please');
    const body = await settled(promptId);
    expect(body).toMatchObject({
      state: 'completed',
      stopReason: 'end_turn',
      resultText: 'There are two entries.',
      promptText: 'tools please',
    });
    const file = daemon.app.get(ChatRecordingService).pathOf(sessionId)!;
    const records = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const result = records.filter((r) => r.subtype === 'turn_result' && r.promptId === promptId);
    expect(result).toHaveLength(1);
    expect(result[0].systemPayload).toMatchObject({ state: 'completed', resultText: 'There are two entries.' });
    const model = records.filter((r) => r.promptId === promptId && r.type === 'assistant').flatMap((r) => r.message.parts);
    expect(model).toEqual(
      expect.arrayContaining([
        { text: 'I should look at the files.', thought: true },
        { functionCall: expect.objectContaining({ id: 'call-1', name: 'List files' }) },
      ]),
    );
  });

  it('reports an agent error as state error with the JSON-RPC code as a string', async () => {
    const promptId = await daemon.prompt(sessionId, 'error now');
    expect(await settled(promptId)).toMatchObject({
      state: 'error',
      error: { code: '-32603', message: expect.stringContaining('fixture failure') },
    });
    const next = await daemon.prompt(sessionId, 'still here?');
    expect(await settled(next)).toMatchObject({ state: 'completed', resultText: 'fixture: still here?' });
  });

  it('cancels cooperatively through session/cancel', async () => {
    const promptId = await daemon.prompt(sessionId, 'slow job');
    await waitForTurn(daemon, sessionId, promptId, 20_000, 20, (state) => state === 'running');
    await daemon.http.post(`/session/${sessionId}/cancel`).expect(204);
    expect(await settled(promptId)).toMatchObject({ state: 'cancelled', stopReason: 'cancelled' });
  });

  it('fails the running prompt when the agent dies, and restarts it for the next', async () => {
    const promptId = await daemon.prompt(sessionId, 'die now');
    expect(await settled(promptId)).toMatchObject({ state: 'error', error: { code: 'agent_process_exited' } });
    const next = await daemon.prompt(sessionId, 'back again');
    expect(await settled(next)).toMatchObject({ state: 'completed', resultText: 'fixture: back again' });
  });

  it('runs the agent in the session workspace', async () => {
    const promptId = await daemon.prompt(sessionId, 'cwd');
    expect((await settled(promptId)).resultText).toBe(daemon.config.workspaces[0]);
  });
});
