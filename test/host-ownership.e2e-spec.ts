import {
  Controller,
  Get,
  Injectable,
  Param,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
  type INestApplication,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import request from 'supertest';
import { ClientIdGuard } from '../src/index.js';
import { createTurnsTestingApp, principalFromTestHeader, type InMemoryBridgeOverlay } from '../src/testing/index.js';
import { ADAPTERS } from './support/test-daemon.js';

/** A host route of its own, behind the exported guard. */
@Controller('host/:id')
class HostController {
  @Get()
  @UseGuards(ClientIdGuard)
  ping(@Param('id') id: string) {
    return { id };
  }
}

/** The host's own authentication, as Passport's JWT guard leaves it: `request.user` (here from a toy bearer). */
@Injectable()
class BearerUserGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined>; user?: { sub: string } }>();
    const sub = /^Bearer user:(\w+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (sub) req.user = { sub };
    return true;
  }
}

const notFound = (sessionId: string) => ({ error: expect.any(String), code: 'session_not_found', sessionId });

describe.each(ADAPTERS)("a host's principals own its sessions (%s)", (adapter) => {
  let app: INestApplication | undefined;
  afterEach(() => app?.close());

  it('answers another principal on the turn and guarded routes as for a missing session, through the kit’s principal', async () => {
    let bridge: InMemoryBridgeOverlay;
    ({ app, bridge } = await createTurnsTestingApp({ adapter, controllers: [HostController], principal: principalFromTestHeader }));
    bridge.addSession('s1', { owner: 'alice', clientIds: ['c1'] });
    const promptId = bridge.admit('s1', 'hello');
    const http = () => request(app!.getHttpServer());
    for (const path of ['/session/s1/turns/current', `/session/s1/turns/${promptId}`, '/session/s1/turns', '/host/s1']) {
      await http().get(path).set('X-Test-Principal', 'alice').expect(200);
      const missing = await http().get(path.replace('s1', 's2')).set('X-Test-Principal', 'bob');
      const other = await http().get(path).set('X-Test-Principal', 'bob');
      expect([other.status, other.body]).toEqual([404, notFound('s1')]);
      expect([missing.status, missing.body]).toEqual([404, notFound('s2')]);
      // No principal is nobody's: alice's session is not found either.
      expect((await http().get(path)).status).toBe(404);
    }
    // Checked before the client id: a registered id does not open another principal's session.
    expect((await http().get('/session/s1/turns/current').set('X-Test-Principal', 'bob').set('X-Qwen-Client-Id', 'c1')).body).toEqual(
      notFound('s1'),
    );
  });

  it("reads the principal the host's own guard decided (request.user), with the option alone", async () => {
    let bridge: InMemoryBridgeOverlay;
    ({ app, bridge } = await createTurnsTestingApp({
      adapter,
      principal: (req: { user?: { sub: string } }) => req.user?.sub,
      providers: [{ provide: APP_GUARD, useClass: BearerUserGuard }],
    }));
    bridge.addSession('s1', { owner: 'alice' });
    const http = () => request(app!.getHttpServer());
    await http().get('/session/s1/turns/current').set('Authorization', 'Bearer user:alice').expect(200);
    const other = await http().get('/session/s1/turns/current').set('Authorization', 'Bearer user:bob');
    expect([other.status, other.body]).toEqual([404, notFound('s1')]);
  });

  it('checks nothing without the option: every request reaches a live session', async () => {
    let bridge: InMemoryBridgeOverlay;
    ({ app, bridge } = await createTurnsTestingApp({ adapter }));
    bridge.addSession('s1', { owner: 'alice' });
    await request(app.getHttpServer()).get('/session/s1/turns/current').set('X-Test-Principal', 'bob').expect(200);
  });
});
