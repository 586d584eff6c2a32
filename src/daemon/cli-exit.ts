import type { SettledTurnStatus, TurnsApiError } from '../client/index.js';

/**
 * Exit codes of the command line: the outcome of the prompt waited for, or why there is none
 * (docs/waiting.md#exit-codes).
 *
 * @publicApi
 */
export const EXIT = { completed: 0, error: 1, cancelled: 2, expired: 3, usage: 4, notFound: 5, badSetting: 2 } as const;

/** The error codes that exit with `EXIT.notFound`. */
const NOT_FOUND_CODES = new Set(['prompt_not_found', 'session_not_found', 'permission_not_found']);

/** The exit code of a terminal status. */
export function exitCodeOf(status: SettledTurnStatus): number {
  switch (status.state) {
    case 'completed':
      return EXIT.completed;
    case 'cancelled':
      return EXIT.cancelled;
    case 'error':
      return EXIT.error;
    default: {
      const exhaustive: never = status;
      return exhaustive;
    }
  }
}

/** The exit code of an error answer of the daemon: it did not know what was named (5), or it refused the request (4, as docs/waiting.md has it). */
export function exitCodeOfAnswer(error: Pick<TurnsApiError, 'code'>): number {
  return NOT_FOUND_CODES.has(error.code ?? '') ? EXIT.notFound : EXIT.usage;
}
