import { Inject, Injectable } from '@nestjs/common';
import { ApiException } from '../../errors/api-exception.js';
import { clusterUnavailable } from '../../errors/api-errors.js';
import type { FrontRequest, FrontStage } from '../../http/front-door.js';
import { CLUSTER_SETTINGS, type ClusterSettings } from '../node/cluster.settings.js';
import { ClusterNode, NODE_HEADER } from '../node/cluster-node.js';
import { FORWARDED_BY_HEADER } from './forward-headers.js';
import { OwnerCache } from './owner-cache.js';
import { RequestForwarder } from './request-forwarder.js';
import { SessionOwners, type SessionOwner } from './session-owners.js';
import { isLoadRequest } from '../../http/session-path.js';

/**
 * Whether this node answers a request or forwards it to its session's owner, as a stage of the daemon's front door
 * ({@link stage}): docs/cluster.md#inv-route-1 to #inv-route-5.
 */
@Injectable()
export class ClusterRouter {
  private readonly cache: OwnerCache<SessionOwner>;

  constructor(
    private readonly node: ClusterNode,
    private readonly owners: SessionOwners,
    private readonly forwarder: RequestForwarder,
    @Inject(CLUSTER_SETTINGS) private readonly settings: ClusterSettings,
  ) {
    this.cache = new OwnerCache(settings.ownerCacheMs);
  }

  /** A front door stage (after the browser walls): every answer this node gives itself names it (docs/cluster.md#inv-route-7). */
  readonly namesNode: FrontStage = (request, next) => {
    request.headers[NODE_HEADER] = this.node.id;
    next();
  };

  /** The front door stage that forwards: `local` passes the request on to this node's own routes. */
  readonly stage: FrontStage = (request, local) => {
    const sessionId = request.sessionId;
    if (!sessionId) return local();
    if (this.owners.holds(sessionId)) {
      const confirmed = this.owners.confirm(sessionId);
      if (confirmed === true) return local();
      void Promise.resolve(confirmed).then((still) => (still ? local() : this.route(request, sessionId, local)));
      return;
    }
    void this.route(request, sessionId, local);
  };

  private async route(request: FrontRequest, sessionId: string, local: () => void): Promise<void> {
    const { req, res } = request;
    const forwarded = req.headers[FORWARDED_BY_HEADER] !== undefined;
    try {
      // Both look afresh (docs/cluster.md#inv-route-3): a forwarded request came by the sender's view, and a load may claim.
      const load = isLoadRequest(req.method, request.path);
      let owner = forwarded || load ? undefined : this.cache.get(sessionId);
      owner ??= await this.lookup(sessionId);
      if ((!owner || owner.node === this.node.id) && load) {
        owner = await this.claimForLoad(sessionId);
      }
      if (!owner || owner.node === this.node.id) return local();
      if (forwarded) throw clusterUnavailable({ sessionId, node: owner.node }); // docs/cluster.md#inv-route-5
      // The owner logs and counts it by its route; here it is one forwarded request.
      request.label = 'forwarded';
      const reached = await this.forwarder.forward(req, res, owner, sessionId);
      if (!reached || res.statusCode === 404 || res.statusCode === 503) this.cache.delete(sessionId);
    } catch (error) {
      if (!res.headersSent) {
        request.sendError(error instanceof ApiException ? error : clusterUnavailable({ sessionId }), { [NODE_HEADER]: this.node.id });
      }
      req.resume();
    }
  }

  /** The owner in the directory; `503 cluster_unavailable` when it cannot be asked. */
  private async lookup(sessionId: string): Promise<SessionOwner | undefined> {
    let found: { lease: SessionOwner; ttlMs: number } | undefined;
    try {
      found = await this.owners.lookup(sessionId);
    } catch {
      throw clusterUnavailable({ sessionId });
    }
    if (found) this.cache.set(sessionId, found.lease, found.ttlMs);
    else this.cache.delete(sessionId);
    return found?.lease;
  }

  /** Claims a session for a load: `undefined` when this node won, else the winner. */
  private async claimForLoad(sessionId: string): Promise<SessionOwner | undefined> {
    try {
      await this.owners.claim(sessionId);
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
