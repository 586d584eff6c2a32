import { Body, Controller, Get, HttpCode, Module, NotFoundException, Param, Post } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { TurnsClient } from '../src/client/index.js';
import { TurnsModule, type PermissionOutcome } from '../src/index.js';
import { RuntimeModule } from '../src/runtime/index.js';
import { createTurnsTestingApp, InMemoryBridgeOverlay, ScriptedEngine } from '../src/testing/index.js';
import { deferred } from './support/deferred.js';

/** A host's own answer route, as docs/testing.md shows it: the kit's bridge stands in for the host's runtime. */
@Controller('session/:id/permission')
class PermissionAnswersController {
  constructor(private readonly bridge: InMemoryBridgeOverlay) {}

  @Post(':requestId')
  @HttpCode(200)
  answer(@Param('id') sessionId: string, @Param('requestId') requestId: string, @Body() body: { outcome: PermissionOutcome }): object {
    if (!this.bridge.answerPermission(sessionId, requestId, body.outcome)) throw new NotFoundException();
    return {};
  }
}

const MAX_WAIT_MS = 30_000;

/** The `/capabilities` docs/mounting.md has a host serve for held waits. */
@Controller('capabilities')
class CapabilitiesController {
  @Get()
  capabilities(): object {
    return { v: 1, features: ['session_turn_wait'], limits: { maxWaitMs: MAX_WAIT_MS } };
  }
}

/** What docs/mounting.md and docs/testing.md tell a host about tool approval and held waits, on both adapters. */
describe.each(['express', 'fastify'] as const)('a host, tool approval and held waits (%s)', (adapter) => {
  it("serves no answer route in the kit's in-memory app: the request shows on polls, the routes are 404", async () => {
    const { app, bridge } = await createTurnsTestingApp({ adapter });
    try {
      bridge.addSession('s1');
      const promptId = bridge.admit('s1', 'tidy');
      bridge.start('s1');
      const { requestId } = bridge.askPermission('s1');
      expect(requestId).toBe('r1');
      const http = request(app.getHttpServer());
      const running = await http.get(`/session/s1/turns/${promptId}`).expect(200);
      expect(running.body).toMatchObject({ state: 'running', pendingInteractions: [{ requestId }] });
      const answer = { outcome: { outcome: 'cancelled' } };
      await http.post(`/session/s1/permission/${requestId}`).send(answer).expect(404);
      await http.post(`/permission/${requestId}`).send(answer).expect(404);
    } finally {
      await app.close();
    }
  });

  it('answers through the host’s own route mounted beside the kit’s ports, once', async () => {
    const bridge = new InMemoryBridgeOverlay();
    const { app } = await createTurnsTestingApp({
      adapter,
      bridge,
      controllers: [PermissionAnswersController],
      providers: [{ provide: InMemoryBridgeOverlay, useValue: bridge }],
    });
    try {
      bridge.addSession('s1');
      bridge.admit('s1', 'tidy the build');
      bridge.start('s1');
      const { requestId, answered } = bridge.askPermission('s1', { type: 'execute', title: 'rm -rf build' });
      const http = request(app.getHttpServer());
      const allow = { outcome: { outcome: 'selected', optionId: 'allow_once' } };
      await http.post(`/session/s1/permission/${requestId}`).send(allow).expect(200, {});
      await expect(answered).resolves.toEqual({ outcome: 'selected', optionId: 'allow_once' });
      await http.post(`/session/s1/permission/${requestId}`).send(allow).expect(404);
    } finally {
      await app.close();
    }
  });

  it.each([
    ['without /capabilities, TurnsClient polls', false],
    ['with the /capabilities mounting.md shows, it holds its requests', true],
  ])('a host app (RuntimeModule + TurnsModule): %s', async (_, served) => {
    const engine = new ScriptedEngine();
    const dir = mkdtempSync(join(tmpdir(), 'turns-host-'));
    const runtime = RuntimeModule.forRoot({ workspaces: [dir], dataDir: dir, engine: { useValue: engine } });
    @Module({
      imports: [runtime, TurnsModule.forRoot({ imports: [runtime], maxWaitMs: MAX_WAIT_MS })],
      controllers: served ? [CapabilitiesController] : [],
    })
    class AppModule {}
    const { app } = await createTurnsTestingApp({ adapter, imports: [AppModule] });
    await app.listen(0, '127.0.0.1');
    try {
      // The second turn request the wait sends: held (waitMs) or a plain poll.
      const second = deferred<string>();
      const turnRequests: string[] = [];
      const client = new TurnsClient({
        baseUrl: await app.getUrl(),
        fetch: (input, init) => {
          const url = String(input);
          if (url.includes('/turns/') && turnRequests.push(url) === 2) second.resolve(url);
          return fetch(input, init);
        },
      });
      const { sessionId } = await client.createSession({ sessionScope: 'thread' });
      const waiting = client.promptAndWait(sessionId, 'x');
      const turn = await engine.nextTurn();
      const sent = await second.promise;
      turn.say('done');
      turn.finish();
      await expect(waiting).resolves.toMatchObject({ state: 'completed', resultText: 'done' });
      expect(sent.includes(`?waitMs=${MAX_WAIT_MS}`)).toBe(served);
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
