import type { LoggerService, OnApplicationShutdown } from '@nestjs/common';
import { pino, type DestinationStream, type Logger } from 'pino';
import { NEST_TO_PINO, splitNestParams, type LogLevel, type NestLevel } from './log-level.js';
import { prettyLogStream } from './pretty-log-stream.js';

/** One line per answered HTTP request. No header, query or body is ever in it. */
export interface RequestLogLine {
  requestId: string;
  method: string;
  /** The route template the framework matched (`/session/:id/turns/:promptId`), never the path. */
  route: string;
  status: number;
  durationMs: number;
  sessionId?: string;
  /** The client went away before the answer was complete. */
  aborted?: true;
}

/** Where the daemon's log goes: standard output, pretty when it is a terminal. */
export interface DaemonLoggerOptions {
  level: LogLevel;
  /** @default process.stdout */
  out?: NodeJS.WritableStream & { isTTY?: boolean; hasColors?: () => boolean; fd?: number };
  /** Pretty lines instead of JSON. @default out.isTTY */
  pretty?: boolean;
}

/**
 * The daemon's logger: pino behind Nest's `LoggerService`, so every
 * `new Logger('Context')` of the package writes one JSON line per event
 * (`{"level":"warn","time":…,"context":"Cluster","msg":…}`). Standard output
 * is written asynchronously in the background; {@link flush} before exit.
 *
 * @publicApi
 */
export class DaemonLogger implements LoggerService, OnApplicationShutdown {
  private readonly pino: Logger;
  private readonly destination?: DestinationStream & { flushSync?: () => void };

  constructor(options: DaemonLoggerOptions) {
    const out = options.out ?? process.stdout;
    const pretty = options.pretty ?? out.isTTY === true;
    // Buffered, written off the request path; flushed at shutdown.
    this.destination =
      !pretty && out === process.stdout
        ? pino.destination({ dest: 1, sync: false })
        : ((pretty ? prettyLogStream(out) : out) as DestinationStream);
    this.pino = pino(
      {
        level: options.level,
        formatters: { level: (label) => ({ level: label }) },
      },
      this.destination,
    );
  }

  /** True when lines of this level are written (request lines are `info`). */
  enabled(level: 'info' | 'debug'): boolean {
    return this.pino.isLevelEnabled(level);
  }

  request(line: RequestLogLine): void {
    this.pino.info(line, `${line.method} ${line.route} ${line.status}`);
  }

  log(message: unknown, ...params: unknown[]): void {
    this.write('log', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('verbose', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  /** Writes out what is buffered (before the process exits). */
  flush(): void {
    this.destination?.flushSync?.();
  }

  onApplicationShutdown(): void {
    this.flush();
  }

  private write(nestLevel: NestLevel, message: unknown, params: readonly unknown[]): void {
    const level = NEST_TO_PINO[nestLevel];
    if (!this.pino.isLevelEnabled(level)) return;
    const { context, stack, extra } = splitNestParams(nestLevel, params);
    const fields: Record<string, unknown> = { ...(context !== undefined && { context }), ...(stack !== undefined && { stack }) };
    if (extra.length > 0) fields.extra = extra;
    if (message instanceof Error) this.pino[level]({ ...fields, err: message }, message.message);
    else if (typeof message === 'object' && message !== null) this.pino[level]({ ...fields, ...message });
    else this.pino[level](fields, String(message));
  }
}
