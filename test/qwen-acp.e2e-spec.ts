import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AcpEngine } from '../src/acp/acp.engine.js';
import { ChatRecordingService } from '../src/transcript/chat-recording.service.js';
import { startOpenAiStub } from './support/openai-stub.js';
import { waitForTurn } from './support/poll.js';
import { startDaemon, tempDir, type TestDaemon } from './support/test-daemon.js';

/**
 * The ACP engine against the real `qwen --acp` (npm @qwen-code/qwen-code),
 * pointed at a local OpenAI-compatible stub. Opt-in, as the agent is a
 * 144 MB install: `QWEN_BIN=/path/to/node_modules/.bin/qwen npm test`.
 */
const QWEN_BIN = process.env.QWEN_BIN;
(QWEN_BIN ? describe : describe.skip)('ACP engine with qwen --acp', () => {
  let daemon: TestDaemon;
  let stub: Awaited<ReturnType<typeof startOpenAiStub>>;
  let sessionId: string;
  const saved = { ...process.env };

  beforeAll(async () => {
    stub = await startOpenAiStub();
    // The agent inherits the daemon's environment: its model endpoint and a private HOME.
    Object.assign(process.env, {
      OPENAI_BASE_URL: stub.baseUrl,
      OPENAI_API_KEY: 'local',
      OPENAI_MODEL: 'stub',
      HOME: tempDir('qwen-home-'),
    });
    const command = `${QWEN_BIN} --acp`;
    daemon = await startDaemon({ agent: 'acp', agentCommand: command }, { engine: new AcpEngine(command) });
    ({ sessionId } = await daemon.createSession());
  }, 60_000);
  afterAll(async () => {
    await daemon?.close(true);
    await stub?.close();
    process.env = saved;
  });

  it('completes a prompt and records the final answer in turn_result', async () => {
    const promptId = await daemon.prompt(sessionId, 'Say hi');
    const body = await waitForTurn(daemon, sessionId, promptId);
    expect(body).toMatchObject({ state: 'completed', stopReason: 'end_turn', resultText: expect.stringMatching(/^Stub answer \d+\.$/) });
    const records = readFileSync(daemon.app.get(ChatRecordingService).pathOf(sessionId)!, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records.filter((r) => r.subtype === 'turn_result' && r.promptId === promptId)[0].systemPayload.resultText).toBe(body.resultText);
  }, 60_000);

  it('discards the text qwen streamed before its tool call', async () => {
    const file = join(daemon.config.workspaces[0]!, 'notes.txt');
    writeFileSync(file, 'alpha beta\n');
    const promptId = await daemon.prompt(sessionId, `please read ${file}`);
    const body = await waitForTurn(daemon, sessionId, promptId);
    expect(body).toMatchObject({ state: 'completed', resultText: 'The file says: alpha beta' });
  }, 60_000);
});
