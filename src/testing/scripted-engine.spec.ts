import type { EnginePermissionRequest, EngineUpdate, UsageReport } from '../engines/agent-engine.js';
import { ScriptedEngine } from './scripted-engine.js';

describe('ScriptedEngine', () => {
  it('starts a turn when the runtime prompts, streams what the test says, and ends when told', async () => {
    const engine = new ScriptedEngine();
    const session = await engine.openSession({ sessionId: 's1', cwd: '/w', resume: false });
    const updates: EngineUpdate[] = [];
    const result = session.prompt({
      prompt: [{ type: 'text', text: 'hi' }],
      signal: new AbortController().signal,
      onUpdate: (u) => updates.push(u),
    });
    const turn = await engine.nextTurn();
    expect(turn.sessionId).toBe('s1');
    turn.think('pondering');
    turn.tool('call-1', 'ls', 'README.md');
    turn.say('done');
    turn.finish();
    await expect(result).resolves.toEqual({ stopReason: 'end_turn' });
    expect(updates).toEqual([
      { kind: 'thought', text: 'pondering' },
      { kind: 'tool_call', toolCallId: 'call-1', title: 'ls', status: 'pending' },
      { kind: 'tool_call_update', toolCallId: 'call-1', status: 'completed', output: 'README.md' },
      { kind: 'message', text: 'done' },
    ]);
  });

  it('hands out turns started before the test asked, in order; a cancel ends one as cancelled; fail rejects', async () => {
    const engine = new ScriptedEngine();
    const session = await engine.openSession({ sessionId: 's1', cwd: '/w', resume: false });
    const abort = new AbortController();
    const first = session.prompt({ prompt: [], signal: abort.signal, onUpdate: () => undefined });
    const second = session.prompt({ prompt: [], signal: new AbortController().signal, onUpdate: () => undefined });
    await engine.nextTurn();
    abort.abort();
    await expect(first).resolves.toEqual({ stopReason: 'cancelled' });
    (await engine.nextTurn()).fail(new Error('agent crashed'));
    await expect(second).rejects.toThrow('agent crashed');
  });

  it("asks the runtime's approval for a tool call and gets its decision; alone, with nobody to ask, is refused", async () => {
    const engine = new ScriptedEngine();
    const session = await engine.openSession({ sessionId: 's1', cwd: '/w', resume: false });
    const asked: EnginePermissionRequest[] = [];
    const running = session.prompt({
      prompt: [],
      signal: new AbortController().signal,
      onUpdate: () => undefined,
      requestPermission: async (request) => {
        asked.push(request);
        return { outcome: 'selected', optionId: request.options[0]!.optionId };
      },
    });
    const turn = await engine.nextTurn();
    await expect(turn.askPermission('rm -rf build')).resolves.toEqual({ outcome: 'selected', optionId: 'allow_once' });
    expect(asked).toEqual([
      {
        toolCall: { toolCallId: 'scripted-1', title: 'rm -rf build', kind: 'execute' },
        options: [
          { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
          { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
        ],
      },
    ]);
    const own = { toolCall: { title: 'edit a.ts', kind: 'edit' }, options: [{ optionId: 'no', kind: 'reject_once' }] };
    await turn.askPermission(own);
    expect(asked[1]).toBe(own);
    turn.finish();
    await running;

    const alone = session.prompt({ prompt: [], signal: new AbortController().signal, onUpdate: () => undefined });
    const unasked = await engine.nextTurn();
    await expect(unasked.askPermission()).resolves.toEqual({ outcome: 'cancelled' });
    unasked.finish();
    await alone;
  });

  it("reports usage as an agent does: tokens are one response's, a report says more; alone, nobody counts it", async () => {
    const engine = new ScriptedEngine();
    const session = await engine.openSession({ sessionId: 's1', cwd: '/w', resume: false });
    const reports: UsageReport[] = [];
    const running = session.prompt({
      prompt: [],
      signal: new AbortController().signal,
      onUpdate: () => undefined,
      onUsage: (r) => reports.push(r),
    });
    const turn = await engine.nextTurn();
    turn.usage({ inputTokens: 12, outputTokens: 3, totalTokens: 15 });
    turn.usage({ kind: 'turn', tokens: { inputTokens: 20, outputTokens: 5, totalTokens: 25 } });
    turn.finish();
    await running;
    expect(reports).toEqual([
      { kind: 'response', tokens: { inputTokens: 12, outputTokens: 3, totalTokens: 15 } },
      { kind: 'turn', tokens: { inputTokens: 20, outputTokens: 5, totalTokens: 25 } },
    ]);
    const alone = session.prompt({ prompt: [], signal: new AbortController().signal, onUpdate: () => undefined });
    const unmetered = await engine.nextTurn();
    expect(() => unmetered.usage({ inputTokens: 1, outputTokens: 1, totalTokens: 2 })).not.toThrow();
    unmetered.finish();
    await alone;
  });
});
