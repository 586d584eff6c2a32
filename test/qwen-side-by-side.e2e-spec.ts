import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AcpEngine } from '../src/acp/acp.engine.js';
import { SseParser } from '../src/client/sse-parser.js';
import { eventually } from './support/eventually.js';
import type { LooseStatus } from './support/loose-status.js';
import { startOpenAiStub } from './support/openai-stub.js';
import { startQwenServe } from './support/qwen-serve.js';
import { startDaemon, tempDir } from './support/test-daemon.js';

/**
 * Issue 35's side by side: the same scenario — `please run: echo ran >
 * marker.txt` in a fresh workspace, the model calling qwen's shell tool — on
 * `qwen serve` 0.24.4 and on our daemon driving `qwen --acp` (the ACP
 * engine), both offline against the model stub. On both the turn is held
 * until a client answers, and the command runs only after an allow. Opt-in,
 * as the agent is a large install:
 * `QWEN_BIN=/path/to/node_modules/.bin/qwen npx jest test/qwen-side-by-side.e2e-spec.ts`.
 */
const QWEN_BIN = process.env.QWEN_BIN;
const PROMPT = 'please run: echo ran > marker.txt';

/** A daemon under test, started afresh for each scenario, with its one workspace. */
interface Running {
  url: string;
  workspace: string;
  stop(): Promise<void>;
}
interface Side {
  name: string;
  start(stubUrl: string): Promise<Running>;
  /** Ours also carries the request on the exact turn poll (beyond the peer). */
  exactTurnPoll: boolean;
}

const SIDES: Side[] = [
  {
    name: 'qwen serve 0.24.4',
    exactTurnPoll: false,
    start: async (stubUrl) => {
      const serve = await startQwenServe(QWEN_BIN!, stubUrl);
      return { url: serve.url, workspace: serve.workspace, stop: serve.stop };
    },
  },
  {
    name: 'ours (acp: qwen --acp)',
    exactTurnPoll: true,
    start: async () => {
      const command = `${QWEN_BIN} --acp`;
      const workspace = tempDir('ours-ws-');
      const daemon = await startDaemon(
        { agent: 'acp', agentCommand: command, workspaces: [workspace] },
        { engine: new AcpEngine(command) },
      );
      return { url: daemon.url, workspace, stop: () => daemon.close(true) };
    },
  },
];

type Answer = 'allow' | 'reject' | 'cancel';
interface Row {
  scenario: Answer;
  daemon: string;
  held?: boolean;
  before?: boolean;
  after?: boolean;
  final?: string;
  options?: string;
  /** What the held polls said, as raw JSON: the evidence behind "held?". */
  evidence?: string;
}
const rows: Row[] = [];

/** The session routes of one daemon, over plain fetch, as a client of either would call them. */
async function openSession(running: Running) {
  const call = async (method: string, path: string, body?: unknown, clientId?: string) => {
    const response = await fetch(`${running.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(clientId && { 'x-qwen-client-id': clientId }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as LooseStatus) : undefined };
  };
  const created = await call('POST', '/session', { cwd: running.workspace });
  expect(created.status).toBe(200);
  const { sessionId, clientId } = created.body as { sessionId: string; clientId: string };
  const session = (method: string, path: string, body?: unknown) => call(method, `/session/${sessionId}${path}`, body, clientId);

  const events: Array<{ type: string; data: LooseStatus }> = [];
  const stream = new AbortController();
  const opened = await fetch(`${running.url}/session/${sessionId}/events`, {
    headers: { 'x-qwen-client-id': clientId },
    signal: stream.signal,
  });
  const parser = new SseParser((event) => events.push({ type: event.event, data: JSON.parse(event.data).data }));
  void (async () => {
    for await (const chunk of opened.body!.pipeThrough(new TextDecoderStream())) parser.push(chunk);
  })().catch(() => undefined);
  return { session, events, close: () => stream.abort() };
}

(QWEN_BIN ? describe : describe.skip)('side by side with qwen serve: a tool runs only after an allow', () => {
  let stub: Awaited<ReturnType<typeof startOpenAiStub>>;
  const saved = { ...process.env };

  beforeAll(async () => {
    stub = await startOpenAiStub();
    // Our daemon's agent inherits this environment: the stub, and a private HOME whose qwen settings make it ask.
    const home = tempDir('qwen-home-');
    mkdirSync(join(home, '.qwen'));
    writeFileSync(join(home, '.qwen', 'settings.json'), JSON.stringify({ tools: { approvalMode: 'default' } }));
    Object.assign(process.env, { OPENAI_BASE_URL: stub.baseUrl, OPENAI_API_KEY: 'local', OPENAI_MODEL: 'stub', HOME: home });
  });
  afterAll(async () => {
    await stub?.close();
    process.env = saved;
    const cell = (value: boolean | string | undefined) =>
      value === undefined ? '?' : value === true ? 'yes' : value === false ? 'no' : value;
    const lines = [
      '| scenario | daemon | held? | marker.txt before answer | marker.txt after answer | final state |',
      '|---|---|---|---|---|---|',
      ...rows.map((r) => `| ${r.scenario} | ${r.daemon} | ${cell(r.held)} | ${cell(r.before)} | ${cell(r.after)} | ${cell(r.final)} |`),
      '',
      ...rows.filter((r) => r.scenario === 'allow').map((r) => `options offered by ${r.daemon}: ${r.options ?? '?'}`),
      ...rows.map((r) => `held, ${r.scenario}, ${r.daemon}: ${r.evidence ?? '?'}`),
    ];
    console.log(`side by side (${PROMPT}):\n${lines.join('\n')}`);
  });

  describe.each<Answer>(['allow', 'reject', 'cancel'])('%s', (scenario) => {
    it.each(SIDES)(
      '$name',
      async (side) => {
        const row: Row = { scenario, daemon: side.name };
        rows.push(row);
        const running = await side.start(stub.baseUrl);
        const client = await openSession(running).catch(async (error) => {
          await running.stop();
          throw error;
        });
        try {
          const { session, events } = client;
          const marker = join(running.workspace, 'marker.txt');
          const admitted = await session('POST', '/prompt', { prompt: [{ type: 'text', text: PROMPT }] });
          expect(admitted.status).toBe(202);
          // Until the agent asks, or (were it to run the tool unasked) the turn settles without asking.
          const { status, current } = await eventually(async () => {
            const polled = { status: (await session('GET', '/status')).body, current: (await session('GET', '/turns/current')).body };
            return polled.status.isWaitingForPermission || polled.current.state !== 'running' ? polled : undefined;
          }, 60_000);
          const request = status.pendingInteractions?.[0];
          row.before = existsSync(marker);
          row.held = current.state === 'running' && status.pendingInteractionCount === 1 && status.pendingInteractions.length === 1;
          row.options = request?.options.map((o: LooseStatus) => `${o.optionId} "${o.label}" (${o.kind})`).join(', ');
          if (!row.held) [row.after, row.final] = [row.before, `${current.state} (${current.stopReason}), never held`];
          const exact = side.exactTurnPoll ? (await session('GET', `/turns/${admitted.body.promptId}`)).body : undefined;
          row.evidence = JSON.stringify({
            status: {
              isWaitingForPermission: status.isWaitingForPermission,
              count: status.pendingInteractionCount,
              requestId: request?.requestId,
            },
            'turns/current': { state: current.state, pendingInteractions: current.pendingInteractions?.length },
            ...(exact && {
              [`turns/${admitted.body.promptId}`]: { state: exact.state, requestId: exact.pendingInteractions?.[0]?.requestId },
            }),
          });

          // Held: running, one pending request for the command, and the command not run.
          expect(row.before).toBe(false);
          expect(current).toMatchObject({ state: 'running' });
          expect(status).toMatchObject({ hasActivePrompt: true, isWaitingForPermission: true, pendingInteractionCount: 1 });
          expect(status.pendingInteractions).toHaveLength(1);
          expect(request).toMatchObject({
            kind: 'permission',
            action: { type: 'execute', input: { command: 'echo ran > marker.txt' } },
            options: expect.arrayContaining([
              { optionId: 'proceed_once', label: 'Allow', kind: 'allow_once' },
              { optionId: 'cancel', label: 'Reject', kind: 'reject_once' },
            ]),
          });
          expect(events.map((e) => e.type)).toContain('permission_request');
          if (exact) expect(exact).toMatchObject({ state: 'running', pendingInteractions: [request] });

          // The answer: the request's own allow_once or reject_once option, or a cancel of the turn.
          const optionOf = (kind: string) => request.options.find((o: LooseStatus) => o.kind === kind).optionId as string;
          const answer = scenario === 'cancel' ? undefined : { outcome: { outcome: 'selected', optionId: optionOf(`${scenario}_once`) } };
          if (answer) expect(await session('POST', `/permission/${request.requestId}`, answer)).toEqual({ status: 200, body: {} });
          else expect((await session('POST', '/cancel', {})).status).toBe(204);
          const settled = await eventually(async () => {
            const { body } = await session('GET', '/turns/current');
            return body.state === 'running' ? undefined : body;
          }, 60_000);
          await eventually(() => events.find((e) => e.type === 'permission_resolved'));
          row.after = existsSync(marker);
          row.final = `${settled.state} (${settled.stopReason})`;

          const resolved = events.find((e) => e.type === 'permission_resolved')!.data;
          if (scenario === 'allow') {
            expect(settled).toMatchObject({ state: 'completed', stopReason: 'end_turn', resultText: 'The command ran.' });
            expect(readFileSync(marker, 'utf8')).toBe('ran\n');
            expect((await session('POST', `/permission/${request.requestId}`, answer)).status).toBe(404);
            const types = events.map((e) => e.type);
            expect(types.indexOf('permission_resolved')).toBeGreaterThan(types.indexOf('permission_request'));
            expect(types.indexOf('turn_complete')).toBeGreaterThan(types.indexOf('permission_resolved'));
          } else {
            expect(settled).toMatchObject(
              scenario === 'reject' ? { state: 'completed', stopReason: 'end_turn' } : { state: 'cancelled', stopReason: 'cancelled' },
            );
            expect(row.after).toBe(false);
          }
          expect(resolved).toMatchObject({ requestId: request.requestId, outcome: answer?.outcome ?? { outcome: 'cancelled' } });
        } finally {
          client.close();
          await running.stop();
        }
      },
      180_000,
    );
  });
});
