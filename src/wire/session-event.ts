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
  | 'permission_request'
  | 'permission_resolved'
  | 'permission_already_resolved'
  | 'permission_forbidden'
  | 'replay_complete'
  | 'state_resync_required';

/**
 * The `data` of each event type, as docs/qwen-serve.md sends it (the peer's shapes;
 * `turn_complete` and `turn_error` carry the whole turn status besides).
 *
 * @publicApi
 */
export interface SessionEventData {
  /** The agent's ACP update as it sent it, wrapped with its session; the prompt is echoed as a `user_message_chunk`. */
  session_update: { sessionId: string; update: { sessionUpdate: string; [field: string]: unknown } };
  pending_prompt_added: { sessionId: string; promptId: string; text: string; queuedAt: number };
  pending_prompt_started: { sessionId: string; promptId: string; text: string };
  pending_prompt_completed: { sessionId: string; promptId: string; state: 'completed' | 'removed' };
  turn_complete: { sessionId: string; promptId: string; stopReason: string; state: 'completed' | 'cancelled'; [field: string]: unknown };
  turn_error: { sessionId: string; promptId: string; message: string; code: string; state: 'error'; [field: string]: unknown };
  prompt_cancelled: { sessionId: string; promptId: string };
  session_rewound: { sessionId: string; promptId: string; targetTurnIndex: number; filesChanged: string[]; filesFailed: string[] };
  /** The agent asks approval for a tool call (docs/permissions.md): the ACP tool call and options, bounded. */
  permission_request: { sessionId: string; requestId: string; toolCall: Record<string, unknown>; options: PermissionRequestOption[] };
  /** The request is answered, by a client (`voterClientId` when it named itself), the policy or the turn's end. */
  permission_resolved: { sessionId: string; requestId: string; outcome: PermissionOutcome; voterClientId?: string };
  /** A client answered a request already answered (its answer is a `404`). */
  permission_already_resolved: { sessionId: string; requestId: string; outcome: PermissionOutcome };
  /** A client the policy does not allow answered (its answer is a `403`). */
  permission_forbidden: { sessionId: string; requestId: string; reason: 'designated_mismatch'; clientId?: string };
}

/** An option of a `permission_request`, as ACP offers it. @publicApi */
export interface PermissionRequestOption {
  optionId: string;
  name?: string;
  kind: string;
}

/**
 * An answer to a request for approval: one of the options offered, or `cancelled` (docs/permissions.md).
 *
 * @publicApi
 */
export type PermissionOutcome = { outcome: 'selected'; optionId: string } | { outcome: 'cancelled' };

/**
 * The body of `POST /session/:id/permission/:requestId` and `POST /permission/:requestId`
 * (the peer's `PermissionResponse`; other fields are ignored).
 *
 * @publicApi
 */
export interface PermissionAnswer {
  outcome: PermissionOutcome;
}

/** The `data` of each stream marker. @publicApi */
export interface SessionStreamMarkerData {
  replay_complete: { lastReplayedEventId: number; lastEventId: number; replayedCount: number };
  state_resync_required: { reason: 'epoch_reset' | 'ring_evicted'; lastDeliveredId: number; earliestAvailableId: number };
}

/** A type of event of the session (not a marker). @publicApi */
export type SessionEventKind = keyof SessionEventData;

/**
 * One SSE frame's `data`, as sent on the wire: a union on `type`, so
 * `if (event.type === 'turn_complete') event.data.stopReason` narrows.
 *
 * @publicApi
 */
export type SessionEvent = {
  [T in SessionEventKind]: {
    id: number;
    v: 1;
    type: T;
    promptId?: string;
    data: SessionEventData[T];
    originatorClientId?: string;
    _meta: { serverTimestamp: number };
  };
}[SessionEventKind];

/**
 * A frame that opens a stream (`replay_complete`, `state_resync_required`):
 * not an event of the session, so it has no id of its own.
 *
 * @publicApi
 */
export type SessionStreamMarker = {
  [T in keyof SessionStreamMarkerData]: { v: 1; type: T; data: SessionStreamMarkerData[T]; _meta: { serverTimestamp: number } };
}[keyof SessionStreamMarkerData];
