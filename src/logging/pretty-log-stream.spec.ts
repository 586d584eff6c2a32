import { prettyLine, prettyLogStream } from './pretty-log-stream.js';

describe('prettyLine', () => {
  const time = Date.UTC(2026, 11, 1, 12, 0, 1, 123);

  it('shows time, level, context, message and the other fields', () => {
    const line = JSON.stringify({ level: 'info', time, pid: 1, hostname: 'h', context: 'Daemon', msg: 'listening', port: 4170 });
    expect(prettyLine(line, false)).toBe('12:00:01.123 INFO  [Daemon] listening {"port":4170}');
  });

  it('colors the level on a terminal that has colors', () => {
    expect(prettyLine(JSON.stringify({ level: 'error', time, msg: 'x' }), true)).toBe('12:00:01.123 \u001b[31mERROR\u001b[39m x');
  });

  it('passes through a line that is not JSON', () => {
    expect(prettyLine('plain', false)).toBe('plain');
  });
});

it('prettyLogStream reassembles lines split across writes', () => {
  const written: string[] = [];
  const stream = prettyLogStream({ write: (s: string) => written.push(s) } as unknown as NodeJS.WritableStream);
  stream.write('{"level":"warn","msg":"a');
  stream.write('b"}\n{"level":"info","msg":"c"}\n');
  expect(written).toEqual(['WARN  ab\n', 'INFO  c\n']);
});
