import type { EngineUpdate, UsageReport } from './agent-engine.js';
import { echoUsage, EchoEngine, splitForStreaming } from './echo.engine.js';

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

  it('reports one response of usage when asked to: a token per 4 code units of prompt and of answer, rounded up', async () => {
    const reports: UsageReport[] = [];
    const request = (engine: EchoEngine) =>
      engine.openSession().then((session) =>
        session.prompt({
          prompt: [{ type: 'text', text: 'hello world' }],
          signal: new AbortController().signal,
          onUpdate: () => undefined,
          onUsage: (report) => reports.push(report),
        }),
      );
    await request(new EchoEngine());
    expect(reports).toEqual([]);
    await request(new EchoEngine(0, true));
    // "hello world": 11 units → 3; "echo: hello world": 17 units → 5.
    expect(reports).toEqual([{ kind: 'response', tokens: { inputTokens: 3, outputTokens: 5, totalTokens: 8 } }]);
    expect(echoUsage('', '')).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
  });

  it('never splits a surrogate pair across chunks', () => {
    expect(splitForStreaming('a😀b😀', 2)).toEqual(['a😀', 'b😀']);
  });
});
