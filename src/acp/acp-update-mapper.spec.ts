import { acpUsageOf, mapAcpUpdate } from './acp-update-mapper.js';

describe('mapAcpUpdate', () => {
  it('maps message and thought chunks', () => {
    expect(mapAcpUpdate({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } })).toEqual({
      kind: 'message',
      text: 'hi',
    });
    expect(mapAcpUpdate({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hmm' } })).toEqual({
      kind: 'thought',
      text: 'hmm',
    });
  });

  it('maps tool calls and their output', () => {
    expect(mapAcpUpdate({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read file', status: 'pending' })).toEqual({
      kind: 'tool_call',
      toolCallId: 't1',
      title: 'Read file',
      status: 'pending',
    });
    expect(
      mapAcpUpdate({
        sessionUpdate: 'tool_call_update',
        toolCallId: 't1',
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: 'body' } }],
      }),
    ).toEqual({ kind: 'tool_call_update', toolCallId: 't1', status: 'completed', output: 'body' });
  });

  it('drops non-text chunks, other updates, and subagent output', () => {
    expect(mapAcpUpdate({ sessionUpdate: 'agent_message_chunk', content: { type: 'image', data: 'x' } })).toBeUndefined();
    expect(mapAcpUpdate({ sessionUpdate: 'plan' })).toBeUndefined();
    expect(mapAcpUpdate({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'echo' } })).toBeUndefined();
    expect(
      mapAcpUpdate({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'sub' }, _meta: { subagent: true } }),
    ).toBeUndefined();
  });
});

describe('acpUsageOf', () => {
  const chunk = (meta: Record<string, unknown>) => ({
    sessionUpdate: 'agent_message_chunk',
    content: { type: 'text', text: '' },
    _meta: meta,
  });

  it("reads a response's tokens from _meta.usage on a message chunk, as qwen --acp sends them (a subagent's too)", () => {
    const usage = { inputTokens: 10, outputTokens: 10, totalTokens: 20, thoughtTokens: 2, cachedReadTokens: 4 };
    expect(acpUsageOf(chunk({ usage, durationMs: 12 }))).toEqual({ tokens: usage });
    expect(acpUsageOf(chunk({ usage, parentToolCallId: 'task-1' }))).toEqual({ tokens: usage });
    expect(acpUsageOf(chunk({ timing: {} }))).toBeUndefined();
    expect(acpUsageOf({ sessionUpdate: 'agent_thought_chunk', _meta: { usage } })).toBeUndefined();
  });

  it("reads the session's cumulative cost from usage_update, in US dollars only", () => {
    expect(acpUsageOf({ sessionUpdate: 'usage_update', cost: { amount: 0.25, currency: 'USD' } })).toEqual({ sessionCostUsd: 0.25 });
    expect(acpUsageOf({ sessionUpdate: 'usage_update', cost: { amount: 3, currency: 'credits' } })).toBeUndefined();
    expect(acpUsageOf({ sessionUpdate: 'usage_update', cost: { amount: -1, currency: 'USD' } })).toBeUndefined();
    expect(acpUsageOf({ sessionUpdate: 'usage_update' })).toBeUndefined();
  });
});
