import { Inject, Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { CLUSTER_SETTINGS, type ClusterSettings } from './cluster-options.js';
import { LeaseDirectory } from './lease-directory.js';
import type { FenceHolder } from './session-fences.js';

/** How the previous owner answered: it let go, it is not there (nothing listens), or it could not be asked. */
export type HandoverAnswer = 'released' | 'gone' | 'unanswered';

/** The peer route a claimer asks a previous owner to let go on (never forwarded, not in the API document). */
const releasePath = (sessionId: string) => `/cluster/sessions/${sessionId}/release`;

/**
 * The claimer's side of a lease handover (docs/cluster.md, *Lease handover*): a node
 * that won a session whose previous owner may still trust its lease in memory
 * (Redis lost the key while the owner's connection stayed up) asks that owner,
 * over HTTP, to let go before the claim resolves; one that cannot be asked in
 * time is waited out until its trust has ended.
 */
@Injectable()
export class LeaseHandover {
  private readonly logger = new Logger('Cluster');

  constructor(
    private readonly directory: LeaseDirectory,
    @Inject(CLUSTER_SETTINGS) private readonly settings: ClusterSettings,
  ) {}

  /** A third of a lease, at most a second: an answer later than that is no faster than waiting. */
  get askTimeoutMs(): number {
    return Math.min(1_000, Math.max(1, Math.floor(this.settings.leaseMs / 3)));
  }

  /**
   * Resolves once `previous` has let go of the session (or nothing listens at
   * its URL), or at `trustEndsAt` (monotonic) when it cannot be asked.
   */
  async handOver(sessionId: string, fence: number, previous: FenceHolder, trustEndsAt: number): Promise<HandoverAnswer> {
    const answer = await this.ask(sessionId, fence, previous);
    if (answer !== 'unanswered') return answer;
    this.logger.warn(`session ${sessionId}: its previous owner ${previous.node} did not answer; waiting out its lease before serving it`);
    // Polled, not one timer: the monotonic clock is the directory's (tests drive it).
    for (let left = trustEndsAt - this.directory.monotonic(); left > 0; left = trustEndsAt - this.directory.monotonic()) {
      await sleep(Math.min(left, Math.max(10, this.settings.leaseMs / 20)));
    }
    return answer;
  }

  private async ask(sessionId: string, fence: number, previous: FenceHolder): Promise<HandoverAnswer> {
    const timeout = this.askTimeoutMs;
    try {
      const { statusCode, body } = await request(`${previous.url.replace(/\/+$/, '')}${releasePath(sessionId)}`, {
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
      // Anything but a 2xx (an earlier version without the route, a refused token) says nothing of its lease.
      return statusCode >= 200 && statusCode < 300 ? 'released' : 'unanswered';
    } catch (error) {
      // Nothing listens there: no process serves the session from that address.
      return refused(error) ? 'gone' : 'unanswered';
    }
  }
}

function refused(error: unknown): boolean {
  const { code, cause } = (error ?? {}) as { code?: string; cause?: { code?: string } };
  return code === 'ECONNREFUSED' || cause?.code === 'ECONNREFUSED';
}
