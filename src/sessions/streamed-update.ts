import type { SessionEventData } from '../wire/session-event.js';
import type { EngineUpdate } from '../engines/agent-engine.js';

/** An ACP session update as the event stream carries it. */
type WireUpdate = SessionEventData['session_update']['update'];

/**
 * The largest ACP update (as JSON) streamed as the agent sent it. The event
 * ring keeps 1,000 events a session for replay, so a tool's whole output must
 * not ride in each of them: a larger update goes out in its mapped shape.
 */
export const MAX_STREAMED_UPDATE_BYTES = 16 * 1024;

/** The ACP `session/update` shape of an engine update, without what the mapping leaves out (tool output). */
export function mappedUpdate(update: EngineUpdate): WireUpdate {
  switch (update.kind) {
    case 'message':
      return { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: update.text } };
    case 'thought':
      return { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: update.text } };
    case 'tool_call':
      return { sessionUpdate: 'tool_call', toolCallId: update.toolCallId, title: update.title, status: update.status };
    case 'tool_call_update':
      return { sessionUpdate: 'tool_call_update', toolCallId: update.toolCallId, status: update.status };
    default: {
      const exhaustive: never = update;
      return exhaustive;
    }
  }
}

/** What `session_update.data.update` carries: the agent's own update (docs/qwen-serve.md), unless it is too large to keep. */
export function streamedUpdate(update: EngineUpdate): WireUpdate {
  const { wire } = update;
  if (wire && Buffer.byteLength(JSON.stringify(wire)) <= MAX_STREAMED_UPDATE_BYTES) return wire;
  return mappedUpdate(update);
}
