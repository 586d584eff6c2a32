import { Inject, Injectable, Logger } from '@nestjs/common';
import { apiError, clusterUnavailable } from '../../errors/api-errors.js';
import { ClusterNode } from '../node/cluster-node.js';
import { CLUSTER_SETTINGS, type ClusterSettings } from '../node/cluster.settings.js';
import { mustAskPrevious, previousTrustEndsBy } from './handover-rule.js';
import { freshUntil, type HeldLease } from './lease-clock.js';
import { LeaseHandover } from './lease-handover.js';
import { LeaseStore } from './lease-store.js';
import { MonotonicClock } from './monotonic-clock.js';
import { SessionFences } from './session-fences.js';

/** A won claim: the lease to hold, and, when the previous owner must be asked first, the handover to run once held. */
export interface WonClaim {
  lease: HeldLease;
  /** Resolves once the previous owner let go, was waited out, or the claim is no longer `wanted`. */
  handOver?: (wanted: () => boolean) => Promise<unknown>;
}

/**
 * One claim of a session's lease: above the fence recorded on the data dir, recorded there before the session is read
 * (docs/cluster.md#inv-lease-1, #inv-lease-7), and the previous owner asked to let go when it may still trust its lease
 * (docs/cluster.md#inv-lease-5).
 */
@Injectable()
export class LeaseClaimer {
  private readonly logger = new Logger('Cluster');

  constructor(
    private readonly leases: LeaseStore,
    private readonly node: ClusterNode,
    @Inject(CLUSTER_SETTINGS) private readonly settings: ClusterSettings,
    private readonly fences: SessionFences,
    private readonly handover: LeaseHandover,
    private readonly clock: MonotonicClock,
  ) {}

  /** Throws `409 session_on_other_node` for a lease another node holds, `503 cluster_unavailable` when it cannot claim. */
  async claim(sessionId: string): Promise<WonClaim> {
    const recorded = await this.fences.latest(sessionId).catch((error: unknown) => {
      // Never guessed around (it may be the highest): the session stays unclaimable until an operator mends it (docs/cluster.md).
      this.logger.error(
        `session ${sessionId} cannot be claimed: its recorded fence cannot be read (${(error as Error)?.message ?? 'error'})`,
      );
      return Promise.reject(clusterUnavailable({ sessionId }));
    });
    const sentAt = this.clock.now();
    const epoch = this.leases.directory.epoch;
    const self = { node: this.node.id, url: this.node.url };
    const previous = recorded.holder?.node === self.node ? undefined : recorded.holder;
    const result = await this.leases.claim(sessionId, self, recorded.fence, previous?.node).catch(() => {
      throw clusterUnavailable({ sessionId });
    });
    const repliedAt = this.clock.now();
    if (!result.won) throw apiError('session_on_other_node', { sessionId, node: result.owner.node });
    // Recorded before the session is read or served: from here a previous owner's next write is refused.
    await this.fences.record(sessionId, result.fence, self).catch(async () => {
      await this.leases.release(sessionId, result.fence).catch(() => undefined);
      throw clusterUnavailable({ sessionId });
    });
    const lease: HeldLease = { fence: result.fence, epoch, validUntil: freshUntil(sentAt, this.settings.leaseMs) };
    const before = { ...result, holder: previous };
    if (!mustAskPrevious(self.node, before)) return { lease };
    const trustEndsAt = previousTrustEndsBy(repliedAt, this.settings.leaseMs);
    return {
      lease,
      handOver: (wanted) =>
        this.handover.handOver(sessionId, result.fence, before.holder, { alive: result.previousAlive, trustEndsAt, wanted }),
    };
  }
}
