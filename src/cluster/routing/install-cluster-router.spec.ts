import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FrontStage } from '../../http/front-door.js';
import { installClusterRouter } from './install-cluster-router.js';

const SESSION = '0b8c2f4e-6a1d-4c3b-9e7f-2d5a8b1c4e6f';

describe('installClusterRouter', () => {
  let server: Server;
  afterEach(() => new Promise((done) => server.close(done)));

  it("stands the router's stages, in order, in front of the app's own listener", async () => {
    server = createServer((_req, res) => res.end('app'));
    const namesNode: FrontStage = (request, next) => {
      request.headers['x-turns-node'] = 'node-a';
      next();
    };
    // Forwards every session's request (answers it here, as the owner would), passes the rest on.
    const stage: FrontStage = (request, local) => (request.sessionId ? request.res.end(`owner of ${request.sessionId}`) : local());
    const app = { get: () => ({ namesNode, stage }), getHttpServer: () => server };
    installClusterRouter(app as never);
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const local = await fetch(`${base}/health`);
    expect([await local.text(), local.headers.get('x-turns-node')]).toEqual(['app', 'node-a']);
    const forwarded = await fetch(`${base}/session/${SESSION}/turns/current`);
    expect(await forwarded.text()).toBe(`owner of ${SESSION}`);
  });
});
