/**
 * Event types of a session's SSE stream.
 *
 * @publicApi
 */
export type SessionEventType =
  | 'session_update'
  | 'pending_prompt_added'
  | 'pending_prompt_started'
  | 'pending_prompt_completed'
  | 'turn_complete'
  | 'turn_error'
  | 'prompt_cancelled'
  | 'session_rewound'
  | 'replay_complete'
  | 'state_resync_required';

/**
 * One SSE frame's `data`, as sent on the wire.
 *
 * @publicApi
 */
export interface SessionEvent {
  id: number;
  v: 1;
  type: SessionEventType;
  promptId?: string;
  data: unknown;
  originatorClientId?: string;
  _meta: { serverTimestamp: number };
}

/**
 * A frame that opens a stream (`replay_complete`, `state_resync_required`):
 * not an event of the session, so it has no id of its own.
 *
 * @publicApi
 */
export interface SessionStreamMarker {
  v: 1;
  type: 'replay_complete' | 'state_resync_required';
  data: Record<string, unknown>;
  _meta: { serverTimestamp: number };
}
