import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { Pool } from 'undici';
import { clusterUnavailable } from '../../errors/api-errors.js';
import { endSpan, injectTraceContext, SpanKind, startSpan, withSpan } from '../../telemetry/tracing.js';
import { TURNS_CHANNELS } from '../../telemetry/turns-channels.js';
import { sendApiError } from '../../errors/send-api-error.js';
import { parseWaitRequest } from '../../turns/wait/wait-request.js';
import { CLUSTER_SETTINGS, type ClusterSettings } from '../node/cluster.settings.js';
import { ClusterNode, NODE_HEADER } from '../node/cluster-node.js';
import { forwardRequestHeaders, forwardResponseHeaders, VIA_HEADER } from './forward-headers.js';
import type { SessionOwner } from './session-owners.js';

/** Keep-alive connections kept open to each peer. */
const CONNECTIONS_PER_PEER = 128;

/** Forwards a request to its session's owner and streams the answer back (docs/cluster.md#inv-route-6 to #inv-route-8); one keep-alive pool per peer. */
@Injectable()
export class RequestForwarder implements OnApplicationShutdown {
  private readonly pools = new Map<string, Pool>();

  constructor(
    private readonly node: ClusterNode,
    @Inject(CLUSTER_SETTINGS) private readonly settings: ClusterSettings,
  ) {}

  /**
   * Resolves when the exchange is over; `false` when the owner could not be
   * reached (nothing was sent from it). Traced as a `turns.forward` client
   * span whose context reaches the owner in `traceparent`.
   */
  async forward(req: IncomingMessage, res: ServerResponse, owner: SessionOwner, sessionId: string): Promise<boolean> {
    const span = startSpan('turns.forward', SpanKind.CLIENT);
    span?.setAttributes({ 'turns.session_id': sessionId, 'turns.owner_node': owner.node, 'http.request.method': req.method ?? 'GET' });
    try {
      const reached = await withSpan(span, () => this.exchange(req, res, owner, sessionId));
      TURNS_CHANNELS.clusterForward.publish({ outcome: reached ? 'forwarded' : 'unreachable' });
      span?.setAttribute('http.response.status_code', res.statusCode);
      endSpan(span, reached ? undefined : new Error('owner unreachable'));
      return reached;
    } catch (error) {
      endSpan(span, error);
      throw error;
    }
  }

  private async exchange(req: IncomingMessage, res: ServerResponse, owner: SessionOwner, sessionId: string): Promise<boolean> {
    const abort = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) abort.abort();
    };
    res.once('close', onClose);
    const headers = forwardRequestHeaders(req.headers, { nodeId: this.node.id, remoteAddress: req.socket.remoteAddress });
    injectTraceContext(headers);
    let upstream;
    try {
      upstream = await this.pool(owner.url).request({
        path: req.url ?? '/',
        method: req.method as 'GET',
        headers,
        body: hasBody(req) ? req : undefined,
        signal: abort.signal,
        headersTimeout: this.settings.forwardTimeoutMs + this.heldFor(req),
        // Event streams and held requests may be quiet for long; a dead peer closes the socket.
        bodyTimeout: 0,
      });
    } catch {
      res.off('close', onClose);
      if (!abort.signal.aborted && !res.headersSent) {
        sendApiError(res, clusterUnavailable({ sessionId, node: owner.node }), { [NODE_HEADER]: this.node.id });
      }
      return false;
    }
    res.writeHead(upstream.statusCode, { ...forwardResponseHeaders(upstream.headers), [VIA_HEADER]: this.node.id });
    // SSE frames must reach the client as they come.
    res.flushHeaders();
    await pipeline(upstream.body, res).catch(() => undefined);
    res.off('close', onClose);
    return true;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.destroy()));
    this.pools.clear();
  }

  /** How long a turn request may be held by the owner before it answers. */
  private heldFor(req: IncomingMessage): number {
    if (req.method !== 'GET' || !req.url?.includes('/turns/')) return 0;
    try {
      const query = new URL(req.url, 'http://peer').searchParams.get('waitMs') ?? undefined;
      const prefer = req.headers.prefer;
      return parseWaitRequest(query, Array.isArray(prefer) ? prefer.join(',') : prefer, this.settings.maxWaitMs).waitMs;
    } catch {
      return 0;
    }
  }

  private pool(url: string): Pool {
    let pool = this.pools.get(url);
    if (!pool) {
      pool = new Pool(url, { connections: CONNECTIONS_PER_PEER, connect: { timeout: 2_000 }, keepAliveTimeout: 10_000 });
      this.pools.set(url, pool);
    }
    return pool;
  }
}

function hasBody(req: IncomingMessage): boolean {
  if (req.method === 'GET' || req.method === 'HEAD') return false;
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}
