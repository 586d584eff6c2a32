import { mapAcpUpdate } from './acp-update-mapper.js';

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
