import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { createObserveModule } from '@nestjs/observe';
import request from 'supertest';
import { BridgeOverlayProvider, TurnsModule } from '../src/index.js';
import { InMemoryBridgeOverlay, InMemoryTranscriptScan } from '../src/testing/index.js';
import { eventually } from './support/eventually.js';
import { ADAPTERS } from './support/test-daemon.js';

/**
 * A host that instruments itself with Nest's APM SDK, as its README shows: `createObserveModule()`, its module
 * in the app and `instrument` given to `NestFactory.create` (every provider and controller, ours included, wrapped).
 * Its collector is a loopback stub, so nothing leaves the machine; the turn routes still answer as without it.
 */
describe.each(ADAPTERS)('a host instrumented with @nestjs/observe (%s)', (adapter) => {
  let collector: Server;
  const ingested: string[] = [];
  let app: INestApplication;
  let bridge: InMemoryBridgeOverlay;

  beforeAll(async () => {
    collector = createServer((req, res) => {
      ingested.push(`${req.method} ${req.url}`);
      req.resume().on('end', () => res.writeHead(202).end());
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    const { ObserveModule, ObserveInstrument } = createObserveModule();

    @Module({
      imports: [
        ObserveModule.forRoot({
          appKey: 'key',
          appSecret: 'secret',
          serviceId: 'turns-host',
          endpoint,
          flushInterval: 100,
          runtimeMetrics: false,
        }),
        TurnsModule.forRoot({
          bridgeOverlay: InMemoryBridgeOverlay,
          transcriptScan: InMemoryTranscriptScan,
          clientIdHeader: 'X-Acme-Client',
        }),
      ],
    })
    class AppModule {}

    const options = { instrument: ObserveInstrument, logger: false as const };
    app =
      adapter === 'fastify'
        ? await NestFactory.create(AppModule, new FastifyAdapter(), options)
        : await NestFactory.create(AppModule, options);
    await app.listen(0, '127.0.0.1');
    bridge = app.get(BridgeOverlayProvider, { strict: false }) as InMemoryBridgeOverlay;
  });

  afterAll(async () => {
    await app?.close();
    await new Promise((resolve) => collector?.close(resolve));
  });

  it('boots and serves the turn routes: current, a settled prompt with its ETag, the list, and the guard', async () => {
    bridge.addSession('s1', { clientIds: ['c1'] });
    const promptId = bridge.admit('s1', 'hello');
    bridge.start('s1');
    bridge.complete('s1', { resultText: 'hi there' });
    const http = request(app.getHttpServer());

    const current = await http.get('/session/s1/turns/current').set('X-Acme-Client', 'c1').expect(200);
    expect(current.body).toMatchObject({ sessionId: 's1', promptId, state: 'completed', resultText: 'hi there' });
    const exact = await http.get(`/session/s1/turns/${promptId}`).set('X-Acme-Client', 'c1').expect(200);
    await http.get(`/session/s1/turns/${promptId}`).set('If-None-Match', exact.headers.etag!).expect(304);
    const list = await http.get('/session/s1/turns').expect(200);
    expect(list.body.turns.map((turn: { promptId: string }) => turn.promptId)).toEqual([promptId]);
    const missing = await http.get('/session/s1/turns/nope').expect(404);
    expect(missing.body).toMatchObject({ code: 'prompt_not_found' });
    const foreign = await http.get('/session/s1/turns/current').set('X-Acme-Client', 'someone-else').expect(400);
    expect(foreign.body).toMatchObject({ code: 'invalid_client_id' });
    // The instrumentation is live: the agent ships what it traced to the host's collector.
    expect(await eventually(() => (ingested.length > 0 ? ingested : undefined))).not.toHaveLength(0);
  });
});
