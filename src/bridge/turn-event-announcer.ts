import type { SessionEventBus } from '../events/session-event-bus.js';
import type { SessionEventData, SessionEventKind } from '../wire/session-event.js';
import { pendingPromptAdded, pendingPromptCompleted, pendingPromptStarted, terminalEvent } from './turn-events.js';
import type { TurnObserver, TurnTransition } from './turn-transition.js';

/**
 * The session events of the stream (docs/qwen-serve.md): a terminal's `turn_complete`
 * or `turn_error`, and the `pending_prompt_*` events of a prompt that waited
 * behind another (a withdrawn one leaves as `removed`, with no turn event).
 */
export function announceTurnEvents(events: SessionEventBus): TurnObserver {
  const announce = <T extends SessionEventKind>(transition: TurnTransition, type: T, data: SessionEventData[T]) => {
    const { sessionId, promptId, originatorClientId } = transition;
    events.publish(sessionId, type, { promptId, data, originatorClientId });
  };
  return (transition) => {
    const { kind, sessionId, promptId, status, waited } = transition;
    const prompt = { promptId, promptText: status.promptText ?? '', queuedAt: status.queuedAt ?? 0 };
    if (kind === 'admitted' && waited) {
      announce(transition, 'pending_prompt_added', pendingPromptAdded(sessionId, prompt));
    } else if (kind === 'started' && waited) {
      announce(transition, 'pending_prompt_started', pendingPromptStarted(sessionId, prompt));
    } else if (kind === 'withdrawn' && waited) {
      // Its admission was refused: it leaves the pending list, with no turn event.
      announce(transition, 'pending_prompt_completed', pendingPromptCompleted(sessionId, promptId, false));
    } else if (kind === 'settled' && status.state !== 'queued' && status.state !== 'running') {
      const wire = terminalEvent(status);
      announce(transition, wire.type, wire.data);
      if (waited)
        announce(transition, 'pending_prompt_completed', pendingPromptCompleted(sessionId, promptId, status.startedAt !== undefined));
    }
  };
}
