import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { apiError, clusterUnavailable } from '../errors/api-errors.js';
import { SessionOwnership, type ClusterState } from '../sessions/session-ownership.js';
import { TURNS_CHANNELS } from '../telemetry/turns-channels.js';
import { CLUSTER_SETTINGS, type ClusterSettings } from './node/cluster.settings.js';
import { ClusterNode } from './node/cluster-node.js';
import { mustAskPrevious, previousTrustEndsBy } from './handover-rule.js';
import { freshUntil, staleInOutage, usable, type HeldLease } from './lease-clock.js';
import { LeaseDirectory, type RenewOutcome } from './lease-directory.js';
import { LeaseHandover } from './lease-handover.js';
import { NodeHeartbeat } from './node-heartbeat.js';
import { SessionFences } from './session-fences.js';
import { UnownedSightings } from './unowned-sightings.js';

/** Leases between two sweeps for sessions no node holds. */
const UNOWNED_SWEEP_LEASES = 5;

/**
 * Session ownership by leases in the {@link LeaseDirectory}: a request for a
 * session whose lease is fresh costs no Redis call; every third of a lease all
 * leases are renewed in one call, and the node heartbeats.
 *
 * Fencing ([Cluster mode](../../docs/cluster.md)): a lease is trusted without
 * asking until 80% of its time after its last renewal was *sent* (monotonic:
 * a node paused past it asks before it serves or writes), and only over the
 * connection that confirmed it (Redis may have restarted empty). Redis
 * unreachable while a lease is fresh leaves it working; one already stale is
 * `503` until Redis answers. Each claim records its fence on the shared data
 * dir ({@link SessionFences}), and a higher one recorded there closes the
 * session here: checked before every write and whenever Redis cannot be asked.
 * A claim whose previous owner may still trust its lease (Redis lost the key,
 * the owner's heartbeat is there) asks it to let go before it resolves
 * ({@link LeaseHandover}).
 *
 * @publicApi
 */
@Injectable()
export class RedisSessionOwnership extends SessionOwnership implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Cluster');
  private readonly held = new Map<string, HeldLease>();
  private readonly claiming = new Map<string, Promise<void>>();
  private readonly rechecking = new Map<string, Promise<boolean>>();
  private readonly sightings: UnownedSightings;
  private readonly heartbeat: NodeHeartbeat;
  private timer?: NodeJS.Timeout;
  private closing?: NodeJS.Timeout;
  private stopping = false;
  private directoryDown = false;
  /** Monotonic send time of the first failed directory call of the current outage. */
  private unreachableSince?: number;
  /**
   * Milliseconds on a clock that keeps counting while the process is paused:
   * the directory's, which stamps its connections with it; tests drive it.
   */
  get monotonic(): () => number {
    return this.directory.monotonic;
  }
  set monotonic(clock: () => number) {
    this.directory.monotonic = clock;
  }

  constructor(
    private readonly directory: LeaseDirectory,
    private readonly node: ClusterNode,
    @Inject(CLUSTER_SETTINGS) private readonly settings: ClusterSettings,
    private readonly fences: SessionFences,
    private readonly handover: LeaseHandover,
  ) {
    super();
    this.sightings = new UnownedSightings(directory, settings.leaseMs, 2 * this.unownedSweepMs);
    this.heartbeat = new NodeHeartbeat(directory, node, () => this.held.size);
  }

  override clusterState(): ClusterState {
    return { nodeId: this.node.id, redis: this.directory.connected ? 'up' : 'down', leases: this.held.size };
  }

  /** Every few leases: a dead owner's lease has expired by then, and a pass reads each ledger's tail once. */
  override get unownedSweepMs(): number {
    return UNOWNED_SWEEP_LEASES * this.settings.leaseMs;
  }

  /** Serving, over a directory connection older than a lease (a Redis restarted empty has no live node's lease or heartbeat yet). */
  override mayClaimUnowned(): boolean {
    return this.node.listening && this.directory.connected && this.monotonic() - this.directory.connectedAt > this.settings.leaseMs;
  }

  /**
   * True at the second of two lookups, a lease apart over one connection, that
   * found no lease for the session: an owner alive renews (so re-creates an
   * emptied Redis's lease) every third of a lease. The first finds false.
   */
  override seenUnowned(sessionId: string): Promise<boolean> {
    return this.sightings.unowned(sessionId);
  }

  /** True when this node holds the session's lease (fresh or not) and its claim has resolved. */
  holds(sessionId: string): boolean {
    return this.held.has(sessionId) && !this.claiming.has(sessionId);
  }

  /**
   * A claim of `fence` asks this node to let go of the session (it won the
   * lease Redis lost for this node): the session is closed here when its
   * lease is of a lower fence and the data dir records `fence` (a claim made,
   * not one named), as when a renewal finds it taken. True when it was held.
   */
  async yieldTo(sessionId: string, fence: number): Promise<boolean> {
    const lease = this.held.get(sessionId);
    if (!lease || lease.fence >= fence) return false;
    // Only a claim recorded on the data dir outranks this node (the claimer records before it asks): a fence a caller
    // merely names lets nothing go.
    const recorded = await this.fences.highest(sessionId).catch(() => 0);
    if (recorded < fence || this.held.get(sessionId) !== lease) return false;
    this.drop(sessionId, `was claimed by another node (fence ${fence} > ${lease.fence}), which asked it to let go`);
    return true;
  }

  claim(sessionId: string): Promise<void> {
    // A claim under way holds the lease already, but resolves only once the previous owner let go.
    let claiming = this.claiming.get(sessionId);
    if (claiming) return claiming;
    if (this.held.has(sessionId)) return Promise.resolve();
    const refused = this.claimRefused();
    if (refused) return Promise.reject(refused);
    claiming = this.claimOnce(sessionId).finally(() => this.claiming.delete(sessionId));
    this.claiming.set(sessionId, claiming);
    return claiming;
  }

  async release(sessionId: string): Promise<void> {
    const lease = this.held.get(sessionId);
    if (!lease) return;
    this.held.delete(sessionId);
    this.heartbeat.announceSoon();
    // Unreachable: the lease simply expires.
    await this.directory.release(sessionId, lease.fence).catch(() => undefined);
    if (this.stopping && this.held.size === 0) {
      clearTimeout(this.closing);
      await this.directory.close();
    }
  }

  confirm(sessionId: string): boolean | Promise<boolean> {
    const lease = this.held.get(sessionId);
    if (!lease) return false;
    if (this.monotonic() < lease.validUntil && lease.epoch === this.directory.epoch && this.directory.connected) return true;
    let recheck = this.rechecking.get(sessionId);
    if (!recheck) {
      recheck = this.renew([sessionId]).then(() => {
        const held = this.held.get(sessionId);
        // A fence it cannot read does not confirm the lease (mayWrite reports it as the error it is).
        return held !== undefined && usable(held, this.monotonic(), this.unreachableSince) && this.unfenced(sessionId).catch(() => false);
      });
      recheck.finally(() => this.rechecking.delete(sessionId)).catch(() => undefined);
      this.rechecking.set(sessionId, recheck);
    }
    return recheck;
  }

  /**
   * Writes go on for a lease still held that Redis cannot confirm right now
   * (a paused owner waking to an unreachable Redis): the turns it already ran
   * are persisted, while `confirm` keeps new requests away until Redis answers.
   * A lease known lost, or outranked by a fence recorded on the data dir, writes nothing; a recorded fence
   * that cannot be read throws (the write fails as a storage error, never lands unchecked).
   */
  override async mayWrite(sessionId: string): Promise<boolean> {
    const confirmed = await this.confirm(sessionId);
    if (!confirmed && !(this.held.has(sessionId) && this.directoryDown)) return false;
    return this.unfenced(sessionId);
  }

  override fenceOf(sessionId: string): number | undefined {
    return this.held.get(sessionId)?.fence;
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), Math.max(1, Math.floor(this.settings.leaseMs / 3)));
    this.timer.unref();
    // Announce the node as soon as it can be reached, not a third of a lease later.
    this.node.whenListening(() => void this.tick());
  }

  /** Leases are released by the sessions' own shutdown; the connection closes after the last. */
  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    this.heartbeat.stop();
    await this.directory.forgetNode(this.node.id).catch(() => undefined);
    if (this.held.size === 0) await this.directory.close();
    // Sessions not released within 2 s (a hung shutdown) do not keep the connection open.
    else this.closing = setTimeout(() => void this.directory.close(), 2_000).unref();
  }

  /** Renews every lease and heartbeats. Exposed for tests that drive time themselves. */
  async tick(): Promise<void> {
    if (this.stopping || !this.node.listening) return;
    // Sent before the renewal, on the same connection: the heartbeat never outlives the leases, so a claimer that
    // finds a lease gone and no heartbeat knows the owner stopped trusting it, and asks nobody.
    const beat = this.heartbeat.beat();
    await this.renew([...this.held.keys()]);
    await beat;
  }

  private async claimOnce(sessionId: string): Promise<void> {
    const recorded = await this.fences.latest(sessionId).catch((error: unknown) => {
      // Never guessed around (it may be the highest): the session stays unclaimable until an operator mends it (docs/cluster.md).
      this.logger.error(
        `session ${sessionId} cannot be claimed: its recorded fence cannot be read (${(error as Error)?.message ?? 'error'})`,
      );
      return Promise.reject(clusterUnavailable({ sessionId }));
    });
    const sentAt = this.monotonic();
    const epoch = this.directory.epoch;
    const self = { node: this.node.id, url: this.node.url };
    const previous = recorded.holder?.node === self.node ? undefined : recorded.holder;
    let result;
    try {
      result = await this.directory.claim(sessionId, self, recorded.fence, previous?.node);
    } catch {
      throw clusterUnavailable({ sessionId });
    }
    const repliedAt = this.monotonic();
    if (!result.won) throw apiError('session_on_other_node', { sessionId, node: result.owner.node });
    try {
      // Recorded before the session is read or served: from here a previous owner's next write is refused.
      await this.fences.record(sessionId, result.fence, self);
    } catch {
      await this.directory.release(sessionId, result.fence).catch(() => undefined);
      throw clusterUnavailable({ sessionId });
    }
    // Held (so renewed) from here, but not served until the claim resolves (`holds`).
    const lease: HeldLease = { fence: result.fence, epoch, validUntil: freshUntil(sentAt, this.settings.leaseMs) };
    this.held.set(sessionId, lease);
    this.heartbeat.announceSoon();
    const { reset, emptied, previousAlive, selfAlive } = result;
    const before = { holder: previous, reset, emptied, previousAlive, selfAlive };
    if (mustAskPrevious(self.node, before)) {
      await this.handover.handOver(sessionId, result.fence, before.holder, {
        alive: result.previousAlive,
        trustEndsAt: previousTrustEndsBy(repliedAt, this.settings.leaseMs),
        // Released (shutdown) or lost meanwhile: nothing left to wait for.
        wanted: () => this.held.get(sessionId) === lease && !this.stopping,
      });
      // Released (shutdown) or lost meanwhile: not ours to serve.
      if (this.held.get(sessionId) !== lease) throw clusterUnavailable({ sessionId });
    }
  }

  /**
   * False, and the session closed here, when a higher fence than this node's
   * was recorded: another node claimed the session, perhaps in a Redis that
   * has since lost the claim, or that this node has not heard from yet.
   */
  private async unfenced(sessionId: string): Promise<boolean> {
    const lease = this.held.get(sessionId);
    if (!lease) return false;
    // Unreadable is an error, not "not outranked": the caller's write fails rather than land unfenced.
    const highest = await this.fences.highest(sessionId);
    if (highest <= lease.fence || this.held.get(sessionId) !== lease) return this.held.get(sessionId) === lease;
    this.drop(sessionId, `was claimed by another node (fence ${highest} > ${lease.fence})`);
    // Only while it still carries this fence: so the new owner need not wait for it to expire.
    await this.directory.release(sessionId, lease.fence).catch(() => undefined);
    return false;
  }

  private drop(sessionId: string, why: string): void {
    this.held.delete(sessionId);
    this.logger.warn(`session ${sessionId} ${why}; closing it here`);
    this.lost(sessionId);
    this.heartbeat.announceSoon();
  }

  /** Renews the given leases in one call; a lease another node took is dropped and its session closed. */
  private async renew(sessionIds: string[]): Promise<void> {
    const leases = sessionIds.flatMap((sessionId) => {
      const lease = this.held.get(sessionId);
      return lease ? [{ sessionId, lease }] : [];
    });
    if (leases.length === 0) return;
    const sentAt = this.monotonic();
    const epoch = this.directory.epoch;
    let outcomes: RenewOutcome[];
    try {
      outcomes = await this.directory.renew(
        leases.map(({ sessionId, lease }) => ({
          sessionId,
          fence: lease.fence,
          extendOnly: staleInOutage(lease, sentAt, this.unreachableSince),
        })),
        { node: this.node.id, url: this.node.url },
      );
      if (this.directoryDown) this.logger.log('directory reachable again');
      this.directoryDown = false;
      this.unreachableSince = undefined;
    } catch {
      if (!this.directoryDown) this.logger.warn('directory unreachable: sessions held here keep working; claims and forwarding answer 503');
      this.directoryDown = true;
      this.unreachableSince ??= sentAt;
      return;
    }
    const trust = (lease: HeldLease) => Object.assign(lease, { validUntil: freshUntil(sentAt, this.settings.leaseMs), epoch });
    // A lease the renewal re-created was gone: another node may have claimed it and let it go meanwhile (this node
    // paused), or an emptied Redis lost it (over a new connection, whatever the reply): the recorded fence decides.
    const recheck: string[] = [];
    leases.forEach(({ sessionId, lease }, index) => {
      if (this.held.get(sessionId) !== lease) return;
      if (outcomes[index] === 'lost') this.drop(sessionId, 'lost its lease to another node');
      else if (lease.epoch === epoch && outcomes[index] === 'extended') trust(lease);
      else recheck.push(sessionId);
    });
    await Promise.all(
      recheck.map(async (sessionId) => (await this.unfenced(sessionId).catch(() => false)) && trust(this.held.get(sessionId)!)),
    );
    const lost = outcomes.filter((outcome) => outcome === 'lost').length;
    TURNS_CHANNELS.clusterLeaseRenewal.publish({ renewed: leases.length - lost, lost });
  }
}
