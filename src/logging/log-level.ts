/** `TURNS_LOG` values: pino's levels, and `silent` for none. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Nest's logger methods → pino levels (`verbose` is Nest's name for pino's `trace`). */
export const NEST_TO_PINO = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
} as const;
export type NestLevel = keyof typeof NEST_TO_PINO;

/**
 * What a Nest logger call carries besides its message: a trailing string is
 * the context (`new Logger('Cluster')`); for `error`, a string before it is
 * the stack. Anything else is extra data.
 */
export function splitNestParams(level: NestLevel, params: readonly unknown[]): { context?: string; stack?: string; extra: unknown[] } {
  const rest = [...params];
  const context = typeof rest.at(-1) === 'string' ? (rest.pop() as string) : undefined;
  const stack = level === 'error' && typeof rest[0] === 'string' ? (rest.shift() as string) : undefined;
  return { ...(context !== undefined && { context }), ...(stack !== undefined && { stack }), extra: rest };
}
