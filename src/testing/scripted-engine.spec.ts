import type { EngineUpdate } from '../engines/agent-engine.js';
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
});
