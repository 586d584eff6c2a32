import { InvalidArgumentError } from 'commander';
import type { TurnState } from '../client/index.js';
import { TURN_STATES } from '../turns/rules/turn-state.js';

// The command line's own checks of flag values: a bad one is a usage error (exit 4) before any request is sent.

/** `--timeout`: a whole number of milliseconds, else a usage error. */
export function milliseconds(value: string): string {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('a whole number of milliseconds');
  return value;
}

/** `--state`: known states, else a usage error (the daemon would refuse the list). */
export function turnStates(value: string): TurnState[] {
  const states = value.split(',').map((name) => name.trim());
  if (!states.every((name) => (TURN_STATES as readonly string[]).includes(name))) {
    throw new InvalidArgumentError(`a comma list of ${TURN_STATES.join(', ')}`);
  }
  return states as TurnState[];
}
