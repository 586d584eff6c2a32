import type { TurnError } from '../turns/rules/normalize-turn-error.js';

/** A queued or running prompt of a session that closes ends with this error. */
export const SESSION_CLOSED: Readonly<TurnError> = Object.freeze({ message: 'Session closed', code: 'session_closed' });

/** A prompt whose deadline passed ends with this error; the FIFO moves on. */
export const DEADLINE_EXCEEDED: Readonly<TurnError> = Object.freeze({
  message: 'Prompt deadline exceeded',
  code: 'prompt_deadline_exceeded',
});

/** A prompt the Session could not run (its run rejected, against its contract, or the session was gone). */
export const FORWARD_FAILED: Readonly<TurnError> = Object.freeze({ message: 'Prompt forwarding failed', code: 'forward_failed' });
