import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import fc from 'fast-check';
import { Writable } from 'node:stream';
import { DaemonLogger } from './daemon-logger.js';

/** A logger writing JSON lines into an array. */
function capture(level: ConstructorParameters<typeof DaemonLogger>[0]['level'] = 'info', options: { logPolls?: boolean } = {}) {
  const lines: Array<Record<string, unknown>> = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: new DaemonLogger({ level, out, pretty: false, ...options }), lines };
}

describe('DaemonLogger', () => {
  it('writes one JSON line per Nest log call, with the level by name and the context', () => {
    const { logger, lines } = capture();
    logger.log('listening on http://127.0.0.1:4170', 'Daemon');
    logger.warn('[agent s1] hello', 'AcpEngine');
    expect(lines).toEqual([
      expect.objectContaining({ level: 'info', context: 'Daemon', msg: 'listening on http://127.0.0.1:4170', time: expect.any(Number) }),
      expect.objectContaining({ level: 'warn', context: 'AcpEngine', msg: '[agent s1] hello' }),
    ]);
  });

  it('keeps an error stack, and an Error as err', () => {
    const { logger, lines } = capture();
    logger.error('boom', 'Error: boom\n    at x', 'Daemon');
    logger.error(new Error('bad'), 'Daemon');
    expect(lines[0]).toMatchObject({ level: 'error', context: 'Daemon', msg: 'boom', stack: 'Error: boom\n    at x' });
    expect(lines[1]).toMatchObject({ level: 'error', msg: 'bad', err: expect.objectContaining({ message: 'bad' }) });
  });

  it('writes no extra for the undefined stack a Logger with a context passes to error', () => {
    const { logger, lines } = capture();
    logger.error('session s1 teardown (shutdown) failed: Error', undefined, 'SessionsService');
    expect(lines).toEqual([expect.objectContaining({ level: 'error', context: 'SessionsService', msg: expect.any(String) })]);
    expect(lines[0]).not.toHaveProperty('extra');
  });

  it('honours the level: below it nothing is written; silent writes nothing at all', () => {
    const warn = capture('warn');
    warn.logger.log('not shown', 'X');
    warn.logger.debug('not shown', 'X');
    warn.logger.warn('shown', 'X');
    expect(warn.lines.map((l) => l.msg)).toEqual(['shown']);
    expect(warn.logger.enabled('info')).toBe(false);
    const silent = capture('silent');
    silent.logger.error('x', 'X');
    silent.logger.request({ requestId: 'r', method: 'GET', route: '/health', status: 200, durationMs: 1 });
    expect(silent.lines).toEqual([]);
  });

  it('a request line is shaped as pino shapes every line (pid, hostname, time), with no field left unescaped', () => {
    const { logger, lines } = capture();
    logger.log('first', 'Daemon');
    logger.request({ requestId: 'r"1', method: 'GET', route: '/x', status: 499, durationMs: 3, aborted: true });
    expect(Object.keys(lines[1]!)).toEqual([
      'level',
      'time',
      'pid',
      'hostname',
      'requestId',
      'method',
      'route',
      'status',
      'durationMs',
      'aborted',
      'msg',
    ]);
    expect(lines[1]).toMatchObject({
      pid: lines[0]!.pid,
      hostname: lines[0]!.hostname,
      requestId: 'r"1',
      aborted: true,
      msg: 'GET /x 499',
    });
    expect(lines[1]!.time).toBeGreaterThanOrEqual(lines[0]!.time as number);
  });

  it('a request line is one JSON line that reads back every field as given, whatever the strings hold', () => {
    const { logger, lines } = capture();
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.constantFrom('a"b', 'a\\b', 'tab\there', 'line\nbreak', '\u2028', '\ud800'),
    );
    fc.assert(
      fc.property(text, text, text, text, (requestId, method, route, sessionId) => {
        lines.length = 0;
        logger.request({ requestId, method, route, status: 200, durationMs: 1.5, sessionId });
        logger.flush();
        expect(lines).toEqual([
          expect.objectContaining({ requestId, method, route, sessionId, status: 200, durationMs: 1.5, msg: `${method} ${route} 200` }),
        ]);
      }),
      { numRuns: 300 },
    );
  });

  it('a request line carries the request id, route template, status, duration and session', () => {
    const { logger, lines } = capture();
    logger.request({
      requestId: 'req-1',
      method: 'GET',
      route: '/session/:id/turns/:promptId',
      status: 404,
      durationMs: 0.42,
      sessionId: 's',
    });
    expect(lines[0]).toMatchObject({
      level: 'info',
      msg: 'GET /session/:id/turns/:promptId 404',
      requestId: 'req-1',
      route: '/session/:id/turns/:promptId',
      status: 404,
      durationMs: 0.42,
      sessionId: 's',
    });
  });

  it("writes probe requests and Nest's route mapping at debug: absent at info, present at debug", () => {
    const chatter = (logger: DaemonLogger) => {
      logger.log('TurnsModule dependencies initialized', 'InstanceLoader');
      logger.log('TurnsController {/session/:id/turns}:', 'RoutesResolver');
      logger.log('Mapped {/health, GET} route', 'RouterExplorer');
      logger.request({ requestId: 'r1', method: 'GET', route: '/health', status: 200, durationMs: 1 });
      logger.request({ requestId: 'r2', method: 'GET', route: '/health/ready', status: 503, durationMs: 1 });
      logger.request({ requestId: 'r3', method: 'GET', route: '/session/:id/turns/current', status: 200, durationMs: 1 });
      logger.log('listening on http://127.0.0.1:4170', 'Daemon');
    };
    const info = capture('info');
    chatter(info.logger);
    expect(info.lines.map((l) => [l.level, l.msg])).toEqual([['info', 'listening on http://127.0.0.1:4170']]);
    const debug = capture('debug');
    chatter(debug.logger);
    expect(debug.lines.map((l) => [l.level, l.msg])).toEqual([
      ['debug', 'TurnsModule dependencies initialized'],
      ['debug', 'TurnsController {/session/:id/turns}:'],
      ['debug', 'Mapped {/health, GET} route'],
      ['debug', 'GET /health 200'],
      ['debug', 'GET /health/ready 503'],
      ['debug', 'GET /session/:id/turns/current 200'],
      ['info', 'listening on http://127.0.0.1:4170'],
    ]);
    expect(JSON.parse(JSON.stringify(debug.lines[3]))).toMatchObject({ level: 'debug', route: '/health', requestId: 'r1' });
  });

  it('writes a poll answered 200 or 304 at info only with logPolls; a failed poll at info always', () => {
    const polls = (logger: DaemonLogger) => {
      for (const [requestId, status] of [
        ['ok', 200],
        ['same', 304],
        ['gone', 404],
      ] as const) {
        if (logger.requestEnabled('/session/:id/turns/:promptId', status))
          logger.request({ requestId, method: 'GET', route: '/session/:id/turns/:promptId', status, durationMs: 1 });
      }
      return logger;
    };
    const quiet = capture('info');
    polls(quiet.logger);
    expect(quiet.lines.map((l) => [l.level, l.requestId])).toEqual([['info', 'gone']]);
    const all = capture('info', { logPolls: true });
    polls(all.logger);
    expect(all.lines.map((l) => [l.level, l.requestId])).toEqual([
      ['info', 'ok'],
      ['info', 'same'],
      ['info', 'gone'],
    ]);
  });

  it("keeps a real Nest app's start-up at info to its own lines: modules and mapped routes only at debug", async () => {
    @Controller('health')
    class ProbeController {
      @Get()
      ok() {
        return { status: 'ok' };
      }
    }
    @Module({ controllers: [ProbeController] })
    class ProbeModule {}
    const started = async (level: 'info' | 'debug') => {
      const { logger, lines } = capture(level);
      const app = await NestFactory.create(ProbeModule, { logger });
      await app.init();
      await app.close();
      return lines.map((l) => `${l.level} ${l.context}`);
    };
    const info = await started('info');
    expect(info.filter((line) => /InstanceLoader|RoutesResolver|RouterExplorer/.test(line))).toEqual([]);
    expect(await started('debug')).toEqual(
      expect.arrayContaining(['debug InstanceLoader', 'debug RoutesResolver', 'debug RouterExplorer']),
    );
  });
});
