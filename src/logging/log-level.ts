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
 * the stack. Anything else but `undefined` is extra data.
 */
export function splitNestParams(level: NestLevel, params: readonly unknown[]): { context?: string; stack?: string; extra: unknown[] } {
  // Nest passes an absent stack as `undefined` (`logger.error(message)` on a Logger with a context): not data.
  const rest = params.filter((param) => param !== undefined);
  const context = typeof rest.at(-1) === 'string' ? (rest.pop() as string) : undefined;
  const stack = level === 'error' && typeof rest[0] === 'string' ? (rest.shift() as string) : undefined;
  return { ...(context !== undefined && { context }), ...(stack !== undefined && { stack }), extra: rest };
}

/** Nest's start-up chatter (a line per module, controller and mapped route): debug, so info holds what an operator acts on. */
const NEST_CHATTER = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/** The pino level of a Nest logger call from `context`. */
export function pinoLevelOf(level: NestLevel, context: string | undefined): (typeof NEST_TO_PINO)[NestLevel] {
  return level === 'log' && context !== undefined && NEST_CHATTER.has(context) ? 'debug' : NEST_TO_PINO[level];
}

/** Probe routes, asked every few seconds by a load balancer or an orchestrator. */
const PROBE_ROUTES = new Set(['/health', '/health/ready']);
/** The turn reads a client polls (`GET`-only routes): at thousands a second their lines are most of a log. */
const POLL_ROUTES = new Set(['/session/:id/turns/:promptId', '/session/:id/turns/current', '/session/:id/turns']);

/**
 * The level of a request line: probes at debug (a readiness change has a line
 * of its own); a poll answered 200 or 304 at debug unless `polls` is `info`
 * (`TURNS_LOG_POLLS`); the rest, failed polls included, at info.
 */
export function requestLevel(route: string, status: number, polls: 'info' | 'debug' = 'debug'): 'info' | 'debug' {
  if (PROBE_ROUTES.has(route)) return 'debug';
  return polls === 'debug' && (status === 200 || status === 304) && POLL_ROUTES.has(route) ? 'debug' : 'info';
}
