// The states of a prompt, in the ground floor: the wire status (turns/) and the
// outcome a runtime reports (turn-outcome.ts) both speak them.

/**
 * Every state a polled prompt can report, in lifecycle order.
 *
 * @publicApi
 */
export const TURN_STATES = ['idle', 'queued', 'running', 'completed', 'cancelled', 'error'] as const;

/** @publicApi */
export type TurnState = (typeof TURN_STATES)[number];

/** States after which a prompt never runs again. @publicApi */
export const TERMINAL_TURN_STATES = ['completed', 'cancelled', 'error'] as const;

/** @publicApi */
export type TerminalTurnState = (typeof TERMINAL_TURN_STATES)[number];

/** @publicApi */
export function isTerminalState(state: TurnState): state is TerminalTurnState {
  switch (state) {
    case 'completed':
    case 'cancelled':
    case 'error':
      return true;
    case 'idle':
    case 'queued':
    case 'running':
      return false;
    default: {
      const exhaustive: never = state;
      return exhaustive;
    }
  }
}
