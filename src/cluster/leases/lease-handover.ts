import { Inject, Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { NODE_HEADER } from '../node/cluster-node.js';
import { CLUSTER_SETTINGS, type ClusterSettings } from '../node/cluster.settings.js';
import { MonotonicClock } from './monotonic-clock.js';
import type { FenceHolder } from './session-fences.js';

/** How the previous owner answered: it let go, it is not there (nothing listens), or it could not be asked. */
export type HandoverAnswer = 'released' | 'gone' | 'unanswered';

/** The peer route a claimer asks a previous owner to let go on (never forwarded, not in the API document). */
const releasePath = (sessionId: string) => `/cluster/sessions/${sessionId}/release`;

/** What the claim knows of the previous owner, and how long it may wait for it. */
export interface HandoverWait {
  /** Its heartbeat was there: a refused connection then means a stale address, not a dead node. */
  alive: boolean;
  /** Monotonic time by which its trust in its lease has ended. */
  trustEndsAt: number;
  /** False once the claim no longer needs the answer (its lease released or lost, the node stopping). */
  wanted: () => boolean;
}

/**
 * The peer's origin, when the fence file names a bare http(s) one; the file is on
 * a shared disk, so nothing else (a path, a query, credentials) is ever asked.
 */
export function peerOrigin(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
    if (parsed.username || parsed.password || parsed.search || parsed.hash || (parsed.pathname !== '/' && parsed.pathname !== '')) {
      return undefined;
    }
    return parsed.origin;
  } catch {
    return undefined;
  }
}

/**
 * The claimer's side of a lease handover (docs/cluster.md#inv-lease-5): the previous owner, which may still trust its
 * lease in memory, is asked over HTTP to let go before the claim resolves, or waited out until its trust has ended.
 */
@Injectable()
export class LeaseHandover {
  private readonly logger = new Logger('Cluster');

  constructor(
    @Inject(CLUSTER_SETTINGS) private readonly settings: ClusterSettings,
    private readonly clock: MonotonicClock,
  ) {}

  /** A third of a lease, at most a second: an answer later than that is no faster than waiting. */
  get askTimeoutMs(): number {
    return Math.min(1_000, Math.max(1, Math.floor(this.settings.leaseMs / 3)));
  }

  /**
   * Resolves once `previous` has let go of the session (or nothing listens at
   * its URL and its heartbeat is gone), or at `wait.trustEndsAt` (monotonic)
   * when it cannot be asked, or once the claim is no longer `wanted`.
   */
  async handOver(sessionId: string, fence: number, previous: FenceHolder, wait: HandoverWait): Promise<HandoverAnswer> {
    const answer = await this.ask(sessionId, fence, previous, wait.alive);
    if (answer !== 'unanswered') return answer;
    this.logger.warn(`session ${sessionId}: its previous owner ${previous.node} did not answer; waiting out its lease before serving it`);
    // Polled, not one timer: the clock is injected (specs drive it).
    for (let left = wait.trustEndsAt - this.clock.now(); left > 0 && wait.wanted(); left = wait.trustEndsAt - this.clock.now()) {
      await sleep(Math.min(left, Math.max(10, this.settings.leaseMs / 20)));
    }
    return answer;
  }

  private async ask(sessionId: string, fence: number, previous: FenceHolder, alive: boolean): Promise<HandoverAnswer> {
    const origin = peerOrigin(previous.url);
    if (!origin) return 'unanswered';
    const timeout = this.askTimeoutMs;
    try {
      const { statusCode, headers, body } = await request(`${origin}${releasePath(sessionId)}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.settings.peerToken !== undefined && { authorization: `Bearer ${this.settings.peerToken}` }),
        },
        body: JSON.stringify({ fence }),
        signal: AbortSignal.timeout(timeout),
        headersTimeout: timeout,
        bodyTimeout: timeout,
        // A rare call: no keep-alive socket left open to the peer.
        reset: true,
      });
      await body.dump();
      // Anything but a 2xx (an earlier version without the route, a refused token) says nothing of its lease, and
      // neither does one from another node at that address (a reused port, a front): only the previous owner's counts.
      const answeredBy = headers[NODE_HEADER];
      return statusCode >= 200 && statusCode < 300 && answeredBy === previous.node ? 'released' : 'unanswered';
    } catch (error) {
      // Nothing listens there and it no longer heartbeats: no process serves the session from that address.
      return refused(error) && !alive ? 'gone' : 'unanswered';
    }
  }
}

function refused(error: unknown): boolean {
  const { code, cause } = (error ?? {}) as { code?: string; cause?: { code?: string } };
  return code === 'ECONNREFUSED' || cause?.code === 'ECONNREFUSED';
}
