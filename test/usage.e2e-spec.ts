import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { AcpEngine } from '../src/acp/acp.engine.js';
import type { DaemonConfig } from '../src/daemon/daemon-config.js';
import { eventually } from './support/eventually.js';
import { waitForTurn } from './support/poll.js';
import { sampleValue } from './support/prometheus.js';
import { ADAPTERS, startDaemon, tempDir, type Adapter, type TestDaemon } from './support/test-daemon.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

const FIXTURE = `node ${join(__dirname, 'fixtures', 'acp-fixture-agent.mjs')}`;

/** The fixture's two model responses (see acp-fixture-agent.mjs), and their sum: what a tool-calling turn used. */
const FIRST_RESPONSE = { inputTokens: 40, outputTokens: 20, totalTokens: 60 };
const TURN_USAGE = { inputTokens: 110, outputTokens: 30, totalTokens: 145, thoughtTokens: 5, cachedReadTokens: 30 };

async function acpDaemon(httpAdapter: Adapter, config: Partial<DaemonConfig> = {}): Promise<TestDaemon> {
  return startDaemon({ agent: 'acp', agentCommand: FIXTURE, httpAdapter, ...config }, { engine: new AcpEngine(FIXTURE) });
}
const settled = (daemon: TestDaemon, sessionId: string, promptId: string) => waitForTurn(daemon, sessionId, promptId, 20_000, 20);
const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
/** What the fixture agent did (calls.log: "model" per model response, "tool" per tool run), and the answers it got. */
const workOf = (daemon: TestDaemon) => {
  const dir = daemon.config.workspaces[0]!;
  return {
    calls: lines(join(dir, 'calls.log')),
    answers: lines(join(dir, 'permission-outcomes.log')),
    ran: existsSync(join(dir, 'marker.txt')),
  };
};
const clearWork = (daemon: TestDaemon) => {
  for (const file of ['calls.log', 'permission-outcomes.log', 'marker.txt'])
    rmSync(join(daemon.config.workspaces[0]!, file), { force: true });
};
const tokensCounted = async (daemon: TestDaemon, kind: string) =>
  sampleValue((await daemon.http.get('/metrics').expect(200)).text, 'turns_tokens_total', { kind });

describe.each(ADAPTERS)('usage on every turn over %s', (httpAdapter) => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await acpDaemon(httpAdapter, { permissionPolicy: 'allow' });
  });
  afterAll(() => daemon.close(true));
  beforeEach(() => clearWork(daemon));

  it.each(['meta', 'total', 'both'])(
    'sums a tool-calling turn reported by usage:%s once, on the exact poll, current, the list and the metrics',
    async (mode) => {
      const { sessionId } = await daemon.createSession();
      const inputBefore = await tokensCounted(daemon, 'input');
      const promptId = await daemon.prompt(sessionId, `tools usage:${mode}`);
      const exact = await settled(daemon, sessionId, promptId);
      // Two cents: the fixture's session cost grows by 0.01 a response (usage_update.cost, only with "both").
      const usage = mode === 'both' ? { ...TURN_USAGE, costUsd: expect.closeTo(0.02, 10) } : TURN_USAGE;
      expect(exact).toMatchObject({ state: 'completed', resultText: 'There are two entries.' });
      expect(exact.usage).toEqual(usage);
      expect((await daemon.http.get(`/session/${sessionId}/turns/current`).expect(200)).body.usage).toEqual(usage);
      const listed = (await daemon.http.get(`/session/${sessionId}/turns`).expect(200)).body.turns;
      expect(listed.find((turn: { promptId: string }) => turn.promptId === promptId).usage).toEqual(usage);
      expect(workOf(daemon).calls).toEqual(['model', 'tool', 'model']);
      // PromptResponse.usage replaces the sum of the responses' _meta.usage: counted once, never twice.
      expect((await tokensCounted(daemon, 'input')) - inputBefore).toBe(TURN_USAGE.inputTokens);
    },
  );

  it("a session's cost is split per turn: each turn gets its own growth of the cumulative usage_update.cost", async () => {
    const { sessionId } = await daemon.createSession();
    const first = await daemon.prompt(sessionId, 'tools usage:both');
    await settled(daemon, sessionId, first);
    const second = await daemon.prompt(sessionId, 'tools usage:both');
    expect((await settled(daemon, sessionId, second)).usage).toEqual({ ...TURN_USAGE, costUsd: expect.closeTo(0.02, 10) });
  });

  it('has no usage when the agent reports none', async () => {
    const { sessionId } = await daemon.createSession();
    const promptId = await daemon.prompt(sessionId, 'tools');
    expect(await settled(daemon, sessionId, promptId)).not.toHaveProperty('usage');
  });

  it('refuses a maxTokens that is not a positive integer: 400 invalid_max_tokens', async () => {
    const { sessionId } = await daemon.createSession();
    for (const maxTokens of [0, -5, 1.5, '100', null]) {
      const res = await daemon.http
        .post(`/session/${sessionId}/prompt`)
        .send({ prompt: [{ type: 'text', text: 'x' }], maxTokens })
        .expect(400);
      expect(res.body).toMatchObject({ code: 'invalid_max_tokens' });
    }
  });

  it("the budget stops the turn's next step: under policy allow the tool does not run, the turn ends error token_budget_exceeded", async () => {
    const { sessionId } = await daemon.createSession();
    const promptId = await daemon.prompt(sessionId, 'shell usage:meta', undefined, { maxTokens: 50 });
    const ended = await settled(daemon, sessionId, promptId);
    expect(ended).toMatchObject({ state: 'error', error: { code: 'token_budget_exceeded' }, usage: FIRST_RESPONSE });
    // The agent asked to run its tool after the response that passed the budget: answered cancelled, and it stopped.
    await eventually(() => (workOf(daemon).answers.length > 0 ? true : undefined), 20_000, 20);
    const next = await daemon.prompt(sessionId, 'hello');
    expect(await settled(daemon, sessionId, next)).toMatchObject({ state: 'completed' });
    expect(workOf(daemon)).toEqual({ calls: ['model'], answers: ['cancelled'], ran: false });
    // The agent's cooperative stop is recorded as the budget's error: the poll still reads it once the transcript has the turn.
    expect((await daemon.http.get(`/session/${sessionId}/turns/${promptId}`).expect(200)).body).toMatchObject({
      state: 'error',
      error: { code: 'token_budget_exceeded' },
      usage: FIRST_RESPONSE,
    });
  });

  it('without a budget the same turn runs its tool and its next model call', async () => {
    const { sessionId } = await daemon.createSession();
    const promptId = await daemon.prompt(sessionId, 'shell usage:meta', undefined, { maxTokens: 1_000 });
    expect(await settled(daemon, sessionId, promptId)).toMatchObject({ state: 'completed', resultText: 'ran (proceed_once)' });
    expect(workOf(daemon)).toEqual({ calls: ['model', 'tool', 'model'], answers: ['proceed_once'], ran: true });
  });
});

describe.each(ADAPTERS)('budgets and running usage over %s', (httpAdapter) => {
  let daemon: TestDaemon;
  afterEach(() => daemon.close(true));

  it("a request's maxTokens only narrows TURNS_PROMPT_MAX_TOKENS", async () => {
    daemon = await acpDaemon(httpAdapter, { permissionPolicy: 'allow', promptMaxTokens: 50 });
    const { sessionId } = await daemon.createSession();
    const promptId = await daemon.prompt(sessionId, 'shell usage:meta', undefined, { maxTokens: 10_000 });
    expect(await settled(daemon, sessionId, promptId)).toMatchObject({ state: 'error', error: { code: 'token_budget_exceeded' } });
    expect((await daemon.http.get('/capabilities').expect(200)).body).toMatchObject({
      features: expect.arrayContaining(['turn_usage', 'turn_token_budget']),
      limits: { promptMaxTokens: 50 },
    });
  });

  it('a running turn carries the usage so far (here while it waits on approval)', async () => {
    daemon = await acpDaemon(httpAdapter);
    const { sessionId } = await daemon.createSession();
    const promptId = await daemon.prompt(sessionId, 'shell usage:meta');
    const running = await eventually(
      async () => {
        const { body } = await daemon.http.get(`/session/${sessionId}/turns/${promptId}`);
        return body.state === 'running' && body.usage && body.pendingInteractions ? body : undefined;
      },
      20_000,
      50,
    );
    expect(running.usage).toEqual(FIRST_RESPONSE);
    await daemon.http.post(`/session/${sessionId}/cancel`).expect(204);
    expect(await settled(daemon, sessionId, promptId)).toMatchObject({ state: 'cancelled', usage: FIRST_RESPONSE });
  });
});

describe.each(ADAPTERS)('usage through a restart over %s', (httpAdapter) => {
  it("the ledger keeps a settled turn's usage: after a restart, load answers it and the exact poll shows the same", async () => {
    const dataDir = tempDir();
    let daemon = await acpDaemon(httpAdapter, { dataDir });
    const { sessionId } = await daemon.createSession();
    const promptId = await daemon.prompt(sessionId, 'tools usage:both');
    const before = (await settled(daemon, sessionId, promptId)).usage;
    await daemon.close();

    daemon = await acpDaemon(httpAdapter, { dataDir });
    try {
      const loaded = (await daemon.http.post(`/session/${sessionId}/load`).expect(200)).body;
      const terminal = loaded.promptTerminals.find((record: { promptId: string }) => record.promptId === promptId);
      expect(terminal).toMatchObject({ terminal: 'completed', usage: before });
      const after = (await daemon.http.get(`/session/${sessionId}/turns/${promptId}`).expect(200)).body;
      expect(after.usage).toEqual(before);
      // The figure of the closing note: one turn's usage before and after the restart.
      console.log(
        `[${httpAdapter}] usage before the restart ${JSON.stringify(before)}; ledger ${JSON.stringify(terminal.usage)}; exact poll after ${JSON.stringify(after.usage)}`,
      );
    } finally {
      await daemon.close(true);
    }
  });
});

describe.each(ADAPTERS)("usage from the testing kit's scripted engine, in webhook bodies, over %s", (httpAdapter) => {
  let daemon: TestDaemon;
  let hook: WebhookReceiver;
  beforeEach(async () => {
    daemon = await startDaemon({ httpAdapter, webhookAllow: ['127.0.0.1'] });
    hook = await WebhookReceiver.start();
  });
  afterEach(async () => {
    await daemon.close(true);
    await hook.close();
  });

  it('a settled turn and one stopped by its budget carry their usage in the webhook body, as the exact poll does', async () => {
    const { sessionId } = await daemon.createSession();
    await daemon.http.post(`/session/${sessionId}/webhooks`).send({ url: hook.url }).expect(201);
    const completed = await daemon.prompt(sessionId, 'hello');
    const turn = await daemon.engine.nextTurn();
    turn.usage({ inputTokens: 12, outputTokens: 3, totalTokens: 15 });
    turn.usage({ kind: 'cost', costUsd: 0.001 });
    turn.say('hi');
    turn.finish();
    const done = JSON.parse((await hook.next()).body);
    const poll = (await daemon.http.get(`/session/${sessionId}/turns/${completed}`).expect(200)).body;
    expect(done).toMatchObject({
      type: 'turn.completed',
      data: { usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15, costUsd: 0.001 } },
    });
    expect(done.data).toEqual(poll);

    const stopped = await daemon.prompt(sessionId, 'loop', undefined, { maxTokens: 10 });
    (await daemon.engine.nextTurn()).usage({ inputTokens: 9, outputTokens: 2, totalTokens: 11 });
    const error = JSON.parse((await hook.next()).body);
    expect(error).toMatchObject({
      type: 'turn.error',
      data: { promptId: stopped, state: 'error', error: { code: 'token_budget_exceeded' }, usage: { totalTokens: 11 } },
    });
  });
});
