import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SystemClock } from '../common/clock.js';
import { ScriptedEngine, type ScriptedTurn } from '../testing/scripted-engine.js';
import { SessionEventBus } from '../events/session-event-bus.js';
import { ChatRecordingService } from '../transcript/chat-recording.service.js';
import type { TranscriptRecord } from '../transcript/transcript-record.js';
import { Session } from './session.js';
import { TOKEN_BUDGET_EXCEEDED } from '../bridge/token-budget.js';

describe('Session', () => {
  const workspace = { id: 'w', cwd: '/srv/w', primary: true };
  let recorder: ChatRecordingService;
  let sessionId: string;
  let engine: ScriptedEngine;

  beforeEach(async () => {
    engine = new ScriptedEngine();
    recorder = new ChatRecordingService({ dataDir: mkdtempSync(join(tmpdir(), 'session-')), enabled: true }, new SystemClock());
    sessionId = randomUUID();
    await recorder.attach(sessionId, workspace.cwd);
  });
  // The transcript handle the recorder keeps open is closed with it.
  afterEach(() => recorder.closeAll());

  function session(): Session {
    const clock = new SystemClock();
    return new Session(sessionId, workspace, 0, { engine, recorder, events: new SessionEventBus(clock), clock });
  }
  const records = (): TranscriptRecord[] =>
    readFileSync(recorder.pathOf(sessionId)!, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
  const input = (promptId: string) => ({
    promptId,
    prompt: [{ type: 'text', text: 'hi' }],
    promptText: 'hi',
    startedAt: 1,
    originatorClientId: 'client_x',
  });

  it('records user, model, tool and exactly one turn_result, with the final answer only', async () => {
    const s = session();
    const prompted = s.prompt(input('p1'), new AbortController().signal);
    const turn = await engine.nextTurn();
    turn.emit({ kind: 'thought', text: 'think' });
    turn.emit({ kind: 'message', text: 'before tool' });
    turn.emit({ kind: 'tool_call', toolCallId: 't1', title: 'ls' });
    turn.emit({ kind: 'tool_call_update', toolCallId: 't1', status: 'completed', output: 'a b' });
    turn.emit({ kind: 'message', text: 'final' });
    turn.finish('end_turn');
    const outcome = await prompted;
    expect(outcome).toMatchObject({ state: 'completed', stopReason: 'end_turn', resultText: 'final', startedAt: 1 });
    const all = records();
    expect(all.map((r) => `${r.type}${r.subtype ? '/' + r.subtype : ''}`)).toEqual([
      'user',
      'assistant',
      'tool_result',
      'assistant',
      'system/turn_result',
    ]);
    expect(all[1]!.message!.parts).toEqual([
      { text: 'think', thought: true },
      { text: 'before tool' },
      { functionCall: { id: 't1', name: 'ls', args: {} } },
    ]);
    const results = all.filter((r) => r.subtype === 'turn_result');
    expect(results).toHaveLength(1);
    expect(results[0]!.systemPayload).toMatchObject({
      promptId: 'p1',
      state: 'completed',
      resultText: 'final',
      promptText: 'hi',
      originatorClientId: 'client_x',
      startedAt: 1,
    });
  });

  it('turns an engine error into state error with its code, and stays usable', async () => {
    const s = session();
    const failed = s.prompt(input('p1'), new AbortController().signal);
    (await engine.nextTurn()).fail(Object.assign(new Error('Internal error'), { code: -32603 }));
    await expect(failed).resolves.toMatchObject({
      state: 'error',
      error: { message: 'Internal error', code: '-32603' },
    });
    const next = s.prompt(input('p2'), new AbortController().signal);
    (await engine.nextTurn()).finish();
    await expect(next).resolves.toMatchObject({ state: 'completed' });
    expect(
      records()
        .filter((r) => r.subtype === 'turn_result')
        .map((r) => r.systemPayload!.state),
    ).toEqual(['error', 'completed']);
  });

  it('reports an aborted prompt as cancelled', async () => {
    const abort = new AbortController();
    const prompted = session().prompt(input('p1'), abort.signal);
    await engine.nextTurn();
    abort.abort();
    await expect(prompted).resolves.toMatchObject({ state: 'cancelled', stopReason: 'cancelled' });
    expect(records().at(-1)!.systemPayload).toMatchObject({ state: 'cancelled', cancelledAt: expect.any(Number) });
  });

  it("sums the engine's usage reports, hands each new sum to the bridge, and records it with the outcome", async () => {
    const sums: unknown[] = [];
    const prompted = session().prompt({ ...input('p1'), onUsage: (usage) => sums.push(usage) }, new AbortController().signal);
    const turn = await engine.nextTurn();
    turn.usage({ inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    turn.usage({ kind: 'cost', costUsd: 0.002 });
    turn.usage({ inputTokens: 20, outputTokens: 5, totalTokens: 25, cachedReadTokens: 8 });
    turn.finish();
    const usage = { inputTokens: 30, outputTokens: 10, totalTokens: 40, cachedReadTokens: 8, costUsd: 0.002 };
    await expect(prompted).resolves.toMatchObject({ state: 'completed', usage });
    expect(sums).toHaveLength(3);
    expect(sums.at(-1)).toEqual(usage);
    expect(records().at(-1)!.systemPayload).toMatchObject({ state: 'completed', usage });
  });

  it('records a stop its token budget asked for as error token_budget_exceeded, not as a cancel that would supersede it', async () => {
    const abort = new AbortController();
    const prompted = session().prompt(input('p1'), abort.signal);
    const turn = await engine.nextTurn();
    turn.usage({ inputTokens: 90, outputTokens: 20, totalTokens: 110 });
    abort.abort(TOKEN_BUDGET_EXCEEDED);
    await expect(prompted).resolves.toMatchObject({
      state: 'error',
      error: { code: 'token_budget_exceeded' },
      usage: { totalTokens: 110 },
    });
    expect(records().at(-1)!.systemPayload).toMatchObject({ state: 'error', error: { code: 'token_budget_exceeded' } });
  });

  it('keeps the outcome when the transcript append fails', async () => {
    jest.spyOn(recorder, 'append').mockResolvedValue(undefined);
    const prompted = session().prompt(input('p1'), new AbortController().signal);
    const turn = await engine.nextTurn();
    turn.say('ok');
    turn.finish();
    await expect(prompted).resolves.toMatchObject({ state: 'completed', resultText: 'ok' });
  });

  it('serializes engine use: a second prompt waits for the first to finish', async () => {
    const order: string[] = [];
    const started = (turn: ScriptedTurn) => (order.push(`start ${(turn.request.prompt[0] as { text: string }).text}`), turn);
    const s = session();
    const one = s.prompt({ ...input('a'), prompt: [{ type: 'text', text: 'one' }] }, new AbortController().signal);
    const two = s.prompt({ ...input('b'), prompt: [{ type: 'text', text: 'two' }] }, new AbortController().signal);
    const first = started(await engine.nextTurn());
    const next = engine.nextTurn().then(started);
    // Give the second prompt every chance to reach the engine before release.
    await recorder.flush(sessionId);
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['start one']);
    order.push('end one');
    first.finish();
    const second = await next;
    order.push('end two');
    second.finish();
    await Promise.all([one, two]);
    expect(order).toEqual(['start one', 'end one', 'start two', 'end two']);
  });
});
