import { MAX_STREAMED_UPDATE_BYTES, mappedUpdate, streamedUpdate } from './streamed-update.js';

describe('streamedUpdate', () => {
  it('streams the agent’s own update as it sent it', () => {
    const wire = { sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed', content: [{ type: 'content', text: 'ok' }] };
    expect(streamedUpdate({ kind: 'tool_call_update', toolCallId: 't1', status: 'completed', output: 'ok', wire })).toBe(wire);
  });

  it('streams an update too large for the replay ring in its mapped shape, without the output', () => {
    const output = 'x'.repeat(MAX_STREAMED_UPDATE_BYTES);
    const wire = { sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed', rawOutput: output };
    expect(streamedUpdate({ kind: 'tool_call_update', toolCallId: 't1', status: 'completed', output, wire })).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 't1',
      status: 'completed',
    });
  });

  it('maps an engine update that came without one (the echo and scripted engines)', () => {
    expect(streamedUpdate({ kind: 'message', text: 'hi' })).toEqual(mappedUpdate({ kind: 'message', text: 'hi' }));
    expect(mappedUpdate({ kind: 'message', text: 'hi' })).toEqual({
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: 'hi' },
    });
  });
});
