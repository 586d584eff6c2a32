import fc from 'fast-check';
import type { EngineUpdate } from './agent-engine.js';
import { FinalAnswerAccumulator } from './final-answer-accumulator.js';

function run(updates: EngineUpdate[]): string | undefined {
  const acc = new FinalAnswerAccumulator();
  updates.forEach((u) => acc.push(u));
  return acc.resultText;
}

describe('FinalAnswerAccumulator', () => {
  it('joins message chunks', () => {
    expect(
      run([
        { kind: 'message', text: 'Hel' },
        { kind: 'message', text: 'lo' },
      ]),
    ).toBe('Hello');
  });

  it('discards text before a tool call and ignores thoughts and tool output', () => {
    expect(
      run([
        { kind: 'thought', text: 'thinking' },
        { kind: 'message', text: 'Let me look.' },
        { kind: 'tool_call', toolCallId: 't1', title: 'read' },
        { kind: 'tool_call_update', toolCallId: 't1', status: 'completed', output: 'file body' },
        { kind: 'thought', text: 'ok' },
        { kind: 'message', text: 'The answer' },
      ]),
    ).toBe('The answer');
  });

  it('has no result when the turn ends on a tool call', () => {
    expect(
      run([
        { kind: 'message', text: 'x' },
        { kind: 'tool_call', toolCallId: 't', title: 'run' },
      ]),
    ).toBeUndefined();
    expect(run([])).toBeUndefined();
  });

  it('equals the message text after the last tool call, for any sequence', () => {
    const update = fc.oneof(
      fc.string().map((text): EngineUpdate => ({ kind: 'message', text })),
      fc.string().map((text): EngineUpdate => ({ kind: 'thought', text })),
      fc.constant<EngineUpdate>({ kind: 'tool_call', toolCallId: 't', title: 'x' }),
    );
    fc.assert(
      fc.property(fc.array(update), (updates) => {
        const lastTool = updates.map((u) => u.kind).lastIndexOf('tool_call');
        const expected = updates
          .slice(lastTool + 1)
          .flatMap((u) => (u.kind === 'message' ? [u.text] : []))
          .join('');
        expect(run(updates)).toBe(expected === '' ? undefined : expected);
      }),
    );
  });
});
