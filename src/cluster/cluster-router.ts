import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { ApiException } from '../errors/api-exception.js';
import { clusterUnavailable } from '../errors/api-errors.js';
import { setRouteTemplate } from '../http/route-template.js';
import { putInFront, type NextListener } from '../http/request-front.js';
import { sendApiError } from '../errors/send-api-error.js';
import { CLUSTER_SETTINGS, type ClusterSettings } from './cluster-options.js';
import { ClusterNode } from './cluster-node.js';
import { FORWARDED_BY_HEADER, NODE_HEADER } from './forward-headers.js';
import { LeaseDirectory, type Lease } from './lease-directory.js';
import { OwnerCache } from './owner-cache.js';
import { RedisSessionOwnership } from './redis-session-ownership.js';
import { RequestForwarder } from './request-forwarder.js';
import { isLoadRequest, sessionIdOf } from '../http/session-path.js';

/**
 * Decides, before the HTTP framework sees a request, whether this node
 * answers it or forwards it to the session's owner. It sits on the Node
 * server itself, so it works the same under Express and Fastify and the
 * forwarded bytes are untouched.
 *
 * - Not session-scoped (`/health`, `POST /session`, …): answered here.
 * - A session this node holds a fresh lease on: answered here, no Redis call.
 * - Otherwise one directory lookup (cached briefly): another node's → forwarded
 *   once; nobody's → answered here (`404`, or a load that claims it first, so
 *   two racing loads make one owner and the loser forwards to it).
 * - A forwarded request is never forwarded again: if this node is not the
 *   owner either, it answers `503 cluster_unavailable`.
 */
@Injectable()
export class ClusterRouter implements OnApplicationBootstrap {
  private readonly owners: OwnerCache<Lease>;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly node: ClusterNode,
    private readonly directory: LeaseDirectory,
    private readonly ownership: RedisSessionOwnership,
    private readonly forwarder: RequestForwarder,
    @Inject(CLUSTER_SETTINGS) private readonly settings: ClusterSettings,
  ) {
    this.owners = new OwnerCache(settings.ownerCacheMs);
  }

  /** Puts the router in front of the framework's request listener. */
  onApplicationBootstrap(): void {
    putInFront(this.adapterHost.httpAdapter.getHttpServer() as Server, (req, res, next) => this.handle(req, res, next));
  }

  handle(req: IncomingMessage, res: ServerResponse, answerHere: NextListener): void {
    const local = () => {
      res.setHeader(NODE_HEADER, this.node.id);
      answerHere(req, res);
    };
    const sessionId = sessionIdOf(req.url);
    if (!sessionId) return local();
    if (this.ownership.holds(sessionId)) {
      const confirmed = this.ownership.confirm(sessionId);
      if (confirmed === true) return local();
      void Promise.resolve(confirmed).then((still) => (still ? local() : this.route(req, res, sessionId, local)));
      return;
    }
    // A request the daemon will refuse anyway costs no lookup.
    if (this.settings.authorize && !this.settings.authorize(req.headers.authorization)) return local();
    void this.route(req, res, sessionId, local);
  }

  private async route(req: IncomingMessage, res: ServerResponse, sessionId: string, local: () => void): Promise<void> {
    const forwarded = req.headers[FORWARDED_BY_HEADER] !== undefined;
    try {
      // A forwarded request came here because the sender's view said so: check afresh.
      let owner = forwarded ? undefined : this.owners.get(sessionId);
      owner ??= await this.lookup(sessionId);
      if ((!owner || owner.node === this.node.id) && isLoadRequest(req.method, req.url)) {
        owner = await this.claimForLoad(sessionId);
      }
      if (!owner || owner.node === this.node.id) return local();
      if (forwarded) throw clusterUnavailable({ sessionId, node: owner.node });
      // The owner logs and counts it by its route; here it is one forwarded request.
      setRouteTemplate(req, 'forwarded');
      const reached = await this.forwarder.forward(req, res, owner, sessionId);
      if (!reached || res.statusCode === 404 || res.statusCode === 503) this.owners.delete(sessionId);
    } catch (error) {
      if (!res.headersSent) {
        sendApiError(res, error instanceof ApiException ? error : clusterUnavailable({ sessionId }), {
          [NODE_HEADER]: this.node.id,
        });
      }
      req.resume();
    }
  }

  /** The owner in the directory; `503 cluster_unavailable` when it cannot be asked. */
  private async lookup(sessionId: string): Promise<Lease | undefined> {
    let owner: Lease | undefined;
    try {
      owner = await this.directory.owner(sessionId);
    } catch {
      throw clusterUnavailable({ sessionId });
    }
    if (owner) this.owners.set(sessionId, owner);
    else this.owners.delete(sessionId);
    return owner;
  }

  /** Claims a session for a load: `undefined` when this node won, else the winner. */
  private async claimForLoad(sessionId: string): Promise<Lease | undefined> {
    try {
      await this.ownership.claim(sessionId);
      return undefined;
    } catch (error) {
      if (error instanceof ApiException && error.code === 'session_on_other_node') {
        const owner = await this.lookup(sessionId);
        if (owner) return owner;
      }
      throw error;
    }
  }
}
