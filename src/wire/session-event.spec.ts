import type { SessionEvent, SessionStreamMarker } from './session-event.js';

/** What a client does with a frame: the union on `type` decides what `data` holds. */
function describeFrame(frame: SessionEvent | SessionStreamMarker): string {
  switch (frame.type) {
    case 'turn_complete':
      return `${frame.data.promptId} ${frame.data.stopReason}`;
    case 'turn_error':
      return `${frame.data.promptId} ${frame.data.code}: ${frame.data.message}`;
    case 'session_update':
      return frame.data.update.sessionUpdate;
    case 'pending_prompt_completed':
      return frame.data.state;
    case 'replay_complete':
      return `replayed ${frame.data.replayedCount}`;
    case 'state_resync_required':
      return frame.data.reason;
    default:
      return frame.type;
  }
}

const meta = { serverTimestamp: 1 };

describe('SessionEvent', () => {
  it('narrows data on type, for events and stream markers alike', () => {
    const complete: SessionEvent = {
      id: 3,
      v: 1,
      type: 'turn_complete',
      data: { sessionId: 's', promptId: 'p', stopReason: 'end_turn', state: 'completed' },
      _meta: meta,
    };
    const update: SessionEvent = {
      id: 2,
      v: 1,
      type: 'session_update',
      data: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } } },
      _meta: meta,
    };
    const resync: SessionStreamMarker = {
      v: 1,
      type: 'state_resync_required',
      data: { reason: 'epoch_reset', lastDeliveredId: 9, earliestAvailableId: 1 },
      _meta: meta,
    };
    expect([complete, update, resync].map(describeFrame)).toEqual(['p end_turn', 'agent_message_chunk', 'epoch_reset']);
  });

  it('refuses data of another type (checked by tsc)', () => {
    const wrong: SessionEvent = {
      id: 1,
      v: 1,
      type: 'pending_prompt_added',
      // @ts-expect-error pending_prompt_added carries text and queuedAt, not a stopReason
      data: { sessionId: 's', promptId: 'p', stopReason: 'end_turn' },
      _meta: meta,
    };
    expect(wrong.type).toBe('pending_prompt_added');
  });
});
