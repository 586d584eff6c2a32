import { Writable } from 'node:stream';

const COLORS: Record<string, string> = { fatal: '35', error: '31', warn: '33', info: '32', debug: '36', trace: '90' };
/** Fields every line has; the rest of a record is shown after the message. */
const SHOWN = new Set(['level', 'time', 'pid', 'hostname', 'context', 'msg']);

/**
 * One JSON log line as a person at a terminal reads it:
 * `12:00:01.123 INFO  [Daemon] listening on … {"route":…}`.
 */
export function prettyLine(json: string, color: boolean): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const level = String(record.level ?? 'info');
  const time = typeof record.time === 'number' ? new Date(record.time).toISOString().slice(11, 23) : '';
  const label = level.toUpperCase().padEnd(5);
  const extra = Object.fromEntries(Object.entries(record).filter(([key]) => !SHOWN.has(key)));
  return [
    time,
    color && COLORS[level] ? `\u001b[${COLORS[level]}m${label}\u001b[39m` : label,
    record.context ? `[${String(record.context)}]` : undefined,
    String(record.msg ?? ''),
    Object.keys(extra).length > 0 ? JSON.stringify(extra) : undefined,
  ]
    .filter((part) => part !== undefined && part !== '')
    .join(' ');
}

/** The stream pino writes to on a TTY: each JSON line reformatted by {@link prettyLine}. */
export function prettyLogStream(out: NodeJS.WritableStream & { hasColors?: () => boolean }): Writable {
  const color = out.hasColors?.() ?? false;
  let pending = '';
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) if (line) out.write(`${prettyLine(line, color)}\n`);
      done();
    },
  });
}
