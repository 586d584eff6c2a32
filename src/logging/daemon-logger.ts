import type { LoggerService, OnApplicationShutdown } from '@nestjs/common';
import { hostname } from 'node:os';
import { pino, type DestinationStream, type Logger } from 'pino';
import { pinoLevelOf, requestLevel, splitNestParams, type LogLevel, type NestLevel } from './log-level.js';
import { LineBatch } from './line-batch.js';
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

/** Characters a JSON string may hold as they are (no quote, backslash or control character). */
const PLAIN = /^[\w .:/*@?=&%+,;~!$'()[\]{}<>|^`#-]*$/;

/**
 * `value` as a JSON string. The request line's fields are tokens (ids, a
 * method, a route template), which need no escaping: quoted as they are, a
 * line took 1.9 µs to build rather than 3.2 with `JSON.stringify` on each.
 */
function jsonString(value: string): string {
  return PLAIN.test(value) ? `"${value}"` : JSON.stringify(value);
}

/** Where the daemon's log goes: standard output, pretty when it is a terminal. */
export interface DaemonLoggerOptions {
  level: LogLevel;
  /** @default process.stdout */
  out?: NodeJS.WritableStream & { isTTY?: boolean; hasColors?: () => boolean; fd?: number };
  /** Pretty lines instead of JSON. @default out.isTTY */
  pretty?: boolean;
  /** A poll answered 200 or 304 at `info` rather than `debug` (`TURNS_LOG_POLLS`). @default false */
  logPolls?: boolean;
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
  private readonly destination: DestinationStream;
  /** Writes out, synchronously, what is batched for standard output. */
  private readonly flushStdout?: () => void;
  /** The fields pino puts on every line after `time`, serialized once for the request line. */
  private readonly base = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`;
  private readonly polls: 'info' | 'debug';

  constructor(options: DaemonLoggerOptions) {
    const out = options.out ?? process.stdout;
    const pretty = options.pretty ?? out.isTTY === true;
    this.polls = options.logPolls ? 'info' : 'debug';
    // Batched: standard output is written off the request path, a few KiB at a time, at least every
    // 100 ms and at shutdown (a write per line cost a Fastify poll +34 µs of server CPU, ~70%).
    if (!pretty && out === process.stdout) {
      const stdout = pino.destination({ dest: 1, sync: false });
      // Logging is best effort: a closed log pipe must not take the daemon down.
      stdout.on('error', () => undefined);
      const batch = new LineBatch(stdout);
      setInterval(() => this.flushed(() => batch.flush()), 100).unref();
      this.flushStdout = () => {
        batch.flush();
        stdout.flushSync();
      };
      this.destination = batch;
    } else {
      this.destination = (pretty ? prettyLogStream(out) : out) as DestinationStream;
    }
    this.pino = pino(
      {
        level: options.level,
        formatters: { level: (label) => ({ level: label }) },
      },
      this.destination,
    );
  }

  /** True when lines of this level are written (request lines are `info`, probes `debug`). */
  enabled(level: 'info' | 'debug'): boolean {
    return this.pino.isLevelEnabled(level);
  }

  /** True when the line of a request answered `status` on `route` is written: asked before the line is built. */
  requestEnabled(route: string, status: number): boolean {
    return this.pino.isLevelEnabled(requestLevel(route, status, this.polls));
  }

  /**
   * The request line, in the shape pino writes, built by hand: through pino
   * it cost ~5 µs a request (a tenth of a Fastify poll); this is a few
   * string joins of fields whose types are fixed.
   */
  request(line: RequestLogLine): void {
    const level = requestLevel(line.route, line.status, this.polls);
    if (!this.pino.isLevelEnabled(level)) return;
    const { method, route, status } = line;
    const session = line.sessionId === undefined ? '' : `,"sessionId":${jsonString(line.sessionId)}`;
    this.destination.write(
      `{"level":"${level}","time":${Date.now()}${this.base},"requestId":${jsonString(line.requestId)},"method":${jsonString(method)},"route":${jsonString(route)},"status":${status},"durationMs":${line.durationMs}${session}${line.aborted ? ',"aborted":true' : ''},"msg":${jsonString(`${method} ${route} ${status}`)}}\n`,
    );
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
    if (this.flushStdout) this.flushed(this.flushStdout);
  }

  private flushed(write: () => void): void {
    try {
      write();
    } catch {
      // Standard output is gone (a closed pipe): nothing left to write to.
    }
  }

  onApplicationShutdown(): void {
    this.flush();
  }

  private write(nestLevel: NestLevel, message: unknown, params: readonly unknown[]): void {
    const { context, stack, extra } = splitNestParams(nestLevel, params);
    const level = pinoLevelOf(nestLevel, context);
    if (!this.pino.isLevelEnabled(level)) return;
    const fields: Record<string, unknown> = { ...(context !== undefined && { context }), ...(stack !== undefined && { stack }) };
    if (extra.length > 0) fields.extra = extra;
    if (message instanceof Error) this.pino[level]({ ...fields, err: message }, message.message);
    else if (typeof message === 'object' && message !== null) this.pino[level]({ ...fields, ...message });
    else this.pino[level](fields, String(message));
  }
}
