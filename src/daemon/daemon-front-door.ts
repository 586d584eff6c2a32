import type { INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import { installFrontDoor, type FrontStage } from '../http/front-door.js';
import { bearerAuth } from './bearer-auth.js';
import { browserWalls, browserWallSettings } from './browser-walls.js';
import type { LoadedDaemonConfig } from './daemon-config.js';
import type { DaemonTokens } from './daemon-tokens.js';
import { inRequestOrder } from './pipelined-requests.js';
import { DOCS_ROUTES, requestGate } from './request-gate.js';
import type { RequestObserver } from './request-observer.js';
import { controllerRoutes, RouteTable } from './route-table.js';
import { sessionOwnerCheck, type SessionAccess } from './session-owner-stage.js';

/** What the front door is built of, besides the configuration. */
export interface FrontDoorParts {
  observer: RequestObserver;
  /** The daemon's principals (`TURNS_TOKEN`, the tokens file): the token check asks them. */
  tokens: DaemonTokens;
  /** Cluster mode's router: its stage naming this node on its answers, and its forwarding stage. */
  cluster?: { readonly namesNode: FrontStage; readonly stage: FrontStage };
  /** `false`: no browser walls (see `DaemonOverrides.browserWalls`). */
  browserWalls?: false;
  /** Where the owner check asks whether a live session is the request's principal's. */
  sessions: SessionAccess;
  /** Decides the request's principal instead of the token check (see `DaemonOverrides.authentication`). */
  authentication?: FrontStage;
  /** With `--rate-limit`: the rate limits' stage (docs/operating.md#rate-limits). */
  rateLimits?: FrontStage;
}

/**
 * The daemon's front door, after `init` (every route is known): the one ordered list of stages that run before the
 * HTTP framework, over one parse of each request; the order is docs/decisions.md#the-daemons-front-door.
 */
export function openFrontDoor(app: INestApplication, config: LoadedDaemonConfig, parts: FrontDoorParts): void {
  const stages: Array<FrontStage | undefined> = [
    parts.observer.stage,
    parts.browserWalls === false ? undefined : browserWalls(browserWallSettings(config)),
    parts.cluster?.namesNode,
    requestGate(config.maxBodyBytes),
    parts.authentication ?? tokenCheck(parts.tokens),
    parts.cluster?.stage,
    parts.rateLimits,
    sessionOwnerCheck(parts.sessions),
    inRequestOrder(),
  ];
  installFrontDoor(
    app.getHttpServer() as Server,
    stages.filter((stage) => stage !== undefined),
    { routes: new RouteTable([...controllerRoutes(app), ...DOCS_ROUTES]) },
  );
}

/** The bearer token stage, when a token is configured: the same on the API's port and on `/metrics`' own. */
function tokenCheck(tokens: DaemonTokens): FrontStage | undefined {
  return tokens.required ? bearerAuth(tokens) : undefined;
}

/** The front door of `/metrics` on its own port (`TURNS_METRICS_PORT`): the browser walls and the token, as on the API's. */
export function metricsFrontDoor(config: LoadedDaemonConfig, tokens: DaemonTokens, walls: boolean): (server: Server) => void {
  const stages = [walls ? browserWalls(browserWallSettings(config)) : undefined, tokenCheck(tokens)];
  return (server) =>
    installFrontDoor(
      server,
      stages.filter((stage) => stage !== undefined),
      { routes: new RouteTable([{ method: 'GET', path: 'metrics' }]) },
    );
}
