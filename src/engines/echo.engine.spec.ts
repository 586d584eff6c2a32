import type { EngineUpdate } from './agent-engine.js';
import { EchoEngine, splitForStreaming } from './echo.engine.js';

describe('EchoEngine', () => {
  it('streams "echo: <promptText>" and ends the turn', async () => {
    const session = await new EchoEngine().openSession();
    const updates: EngineUpdate[] = [];
    const result = await session.prompt({
      prompt: [{ type: 'text', text: 'hello world' }],
      signal: new AbortController().signal,
      onUpdate: (u) => updates.push(u),
    });
    expect(result).toEqual({ stopReason: 'end_turn' });
    expect(updates.length).toBeGreaterThan(1);
    expect(updates.map((u) => (u.kind === 'message' ? u.text : '')).join('')).toBe('echo: hello world');
  });

  it('stops with "cancelled" when aborted mid-answer', async () => {
    const session = await new EchoEngine(10_000).openSession();
    const abort = new AbortController();
    const pending = session.prompt({ prompt: [{ type: 'text', text: 'slow' }], signal: abort.signal, onUpdate: () => undefined });
    abort.abort();
    await expect(pending).resolves.toEqual({ stopReason: 'cancelled' });
  });

  it('never splits a surrogate pair across chunks', () => {
    expect(splitForStreaming('a😀b😀', 2)).toEqual(['a😀', 'b😀']);
  });
});
