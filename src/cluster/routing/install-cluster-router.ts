import type { INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import { installFrontDoor } from '../../http/front-door.js';
import { ClusterRouter } from './cluster-router.js';

/**
 * Puts cluster mode's router in front of a host app's own server, after
 * `app.init()`: a request for a session another node owns is forwarded there,
 * and this node's answers name it (`X-Turns-Node`). `createApp` needs none of
 * this: the router is a stage of the daemon's front door.
 *
 * @publicApi
 */
export function installClusterRouter(app: INestApplication): void {
  const router = app.get(ClusterRouter);
  installFrontDoor(app.getHttpServer() as Server, [router.namesNode, router.stage]);
}
