import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { clusterUnavailable } from '../../errors/api-errors.js';
import type { ClusterState } from '../../sessions/cluster-view.js';
import { TURNS_CHANNELS } from '../../telemetry/turns-channels.js';
import { ClusterNode } from '../node/cluster-node.js';
import { CLUSTER_SETTINGS, type ClusterSettings } from '../node/cluster.settings.js';
import { ClusterOwnership } from './cluster-ownership.js';
import { afterRenewal, type DirectoryReach } from './directory-reach.js';
import { freshUntil, staleInOutage, usable, type HeldLease } from './lease-clock.js';
import { LeaseClaimer } from './lease-claimer.js';
import type { RenewOutcome } from './lease.js';
import { LeaseStore } from './lease-store.js';
import { MonotonicClock } from './monotonic-clock.js';
import { NodeHeartbeat } from './node-heartbeat.js';
import { NodeRegistry } from './node-registry.js';
import { SessionFences } from './session-fences.js';
import { UnownedSightings } from './unowned-sightings.js';

/** Leases between two sweeps for sessions no node holds. */
const UNOWNED_SWEEP_LEASES = 5;

/** The node-wide state of the ownership, replaced as a whole on every change. */
type OwnershipState =
  | { phase: 'serving'; reach: DirectoryReach; renewals?: NodeJS.Timeout }
  | { phase: 'stopping'; reach: DirectoryReach; closing?: NodeJS.Timeout };

/**
 * Session ownership by leases in the {@link LeaseStore}: a request for a session whose lease is fresh costs no Redis
 * call (docs/cluster.md#inv-lease-2); every third of a lease all leases are renewed in one call, after the heartbeat.
 *
 * @publicApi
 */
@Injectable()
export class RedisSessionOwnership extends ClusterOwnership implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Cluster');
  /** This node's leases; `claiming`: claims not resolved yet; `rechecking`: confirmations under way. */
  private readonly held = new Map<string, HeldLease>();
  private readonly claiming = new Map<string, Promise<void>>();
  private readonly rechecking = new Map<string, Promise<boolean>>();
  private readonly sightings: UnownedSightings;
  private readonly heartbeat: NodeHeartbeat;
  private state: OwnershipState = { phase: 'serving', reach: { reachable: true } };

  constructor(
    private readonly leases: LeaseStore,
    nodes: NodeRegistry,
    private readonly node: ClusterNode,
    @Inject(CLUSTER_SETTINGS) private readonly settings: ClusterSettings,
    private readonly fences: SessionFences,
    private readonly claimer: LeaseClaimer,
    private readonly clock: MonotonicClock,
  ) {
    super();
    this.sightings = new UnownedSightings(leases, clock, settings.leaseMs, 2 * this.unownedSweepMs);
    this.heartbeat = new NodeHeartbeat(nodes, node, () => this.held.size);
  }

  private get directory() {
    return this.leases.directory;
  }

  /** When the current outage of the directory began (monotonic), if one is under way. */
  private get outageSince(): number | undefined {
    return this.state.reach.reachable ? undefined : this.state.reach.since;
  }

  override clusterState(): ClusterState {
    return { nodeId: this.node.id, redis: this.directory.connected ? 'up' : 'down', leases: this.held.size };
  }

  /** Every few leases: a dead owner's lease has expired by then, and a pass reads each ledger's tail once. */
  override get unownedSweepMs(): number {
    return UNOWNED_SWEEP_LEASES * this.settings.leaseMs;
  }

  /** Serving, over a directory connection older than a lease (docs/cluster.md#inv-lease-6). */
  override mayClaimUnowned(): boolean {
    return this.node.listening && this.directory.connected && this.clock.now() - this.directory.connectedAt > this.settings.leaseMs;
  }

  /** True at the second of two lookups a lease apart over one connection that found no lease (docs/cluster.md#inv-lease-6). */
  override seenUnowned(sessionId: string): Promise<boolean> {
    return this.sightings.unowned(sessionId);
  }

  holds(sessionId: string): boolean {
    return this.held.has(sessionId) && !this.claiming.has(sessionId);
  }

  async yieldTo(sessionId: string, fence: number): Promise<boolean> {
    const lease = this.held.get(sessionId);
    if (!lease || lease.fence >= fence) return false;
    // Only a claim recorded on the data dir outranks this node: a fence a caller merely names lets nothing go.
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
    await this.leases.release(sessionId, lease.fence).catch(() => undefined);
    if (this.state.phase === 'stopping' && this.held.size === 0) {
      clearTimeout(this.state.closing);
      await this.directory.close();
    }
  }

  confirm(sessionId: string): boolean | Promise<boolean> {
    const lease = this.held.get(sessionId);
    if (!lease) return false;
    if (this.clock.now() < lease.validUntil && lease.epoch === this.directory.epoch && this.directory.connected) return true;
    let recheck = this.rechecking.get(sessionId);
    if (!recheck) {
      recheck = this.renew([sessionId]).then(() => {
        const held = this.held.get(sessionId);
        // A fence it cannot read does not confirm the lease (mayWrite reports it as the error it is).
        return held !== undefined && usable(held, this.clock.now(), this.outageSince) && this.unfenced(sessionId).catch(() => false);
      });
      recheck.finally(() => this.rechecking.delete(sessionId)).catch(() => undefined);
      this.rechecking.set(sessionId, recheck);
    }
    return recheck;
  }

  /** A lease held that Redis cannot confirm right now still persists what it ran, unless fenced (docs/cluster.md#inv-lease-7). */
  override async mayWrite(sessionId: string): Promise<boolean> {
    const confirmed = await this.confirm(sessionId);
    if (!confirmed && !(this.held.has(sessionId) && !this.state.reach.reachable)) return false;
    return this.unfenced(sessionId);
  }

  override fenceOf(sessionId: string): number | undefined {
    return this.held.get(sessionId)?.fence;
  }

  onApplicationBootstrap(): void {
    if (this.state.phase !== 'serving') return;
    const renewals = setInterval(() => void this.tick(), Math.max(1, Math.floor(this.settings.leaseMs / 3))).unref();
    this.state = { ...this.state, renewals };
    // Announce the node as soon as it can be reached, not a third of a lease later.
    this.node.whenListening(() => void this.tick());
  }

  /** Leases are released by the sessions' own shutdown; the connection closes after the last, or within 2 s. */
  async onApplicationShutdown(): Promise<void> {
    if (this.state.phase === 'serving') clearInterval(this.state.renewals);
    this.state = { phase: 'stopping', reach: this.state.reach };
    this.heartbeat.stop();
    await this.heartbeat.forget();
    if (this.held.size === 0) await this.directory.close();
    else this.state = { ...this.state, closing: setTimeout(() => void this.directory.close(), 2_000).unref() };
  }

  async tick(): Promise<void> {
    if (this.state.phase === 'stopping' || !this.node.listening) return;
    // Sent before the renewal, on the same connection (docs/cluster.md#inv-lease-3).
    const beat = this.heartbeat.beat();
    await this.renew([...this.held.keys()]);
    await beat;
  }

  private async claimOnce(sessionId: string): Promise<void> {
    const { lease, handOver } = await this.claimer.claim(sessionId);
    // Held (so renewed) from here, but not served until the claim resolves (`holds`).
    this.held.set(sessionId, lease);
    this.heartbeat.announceSoon();
    if (!handOver) return;
    await handOver(() => this.held.get(sessionId) === lease && this.state.phase === 'serving');
    // Released (shutdown) or lost meanwhile: not ours to serve.
    if (this.held.get(sessionId) !== lease) throw clusterUnavailable({ sessionId });
  }

  /** False, and the session closed here, when a higher fence than this node's was recorded (docs/cluster.md#inv-lease-7). */
  private async unfenced(sessionId: string): Promise<boolean> {
    const lease = this.held.get(sessionId);
    if (!lease) return false;
    // Unreadable is an error, not "not outranked": the caller's write fails rather than land unfenced.
    const highest = await this.fences.highest(sessionId);
    if (highest <= lease.fence || this.held.get(sessionId) !== lease) return this.held.get(sessionId) === lease;
    this.drop(sessionId, `was claimed by another node (fence ${highest} > ${lease.fence})`);
    // Only while it still carries this fence: so the new owner need not wait for it to expire.
    await this.leases.release(sessionId, lease.fence).catch(() => undefined);
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
    const sentAt = this.clock.now();
    const epoch = this.directory.epoch;
    const sent = leases.map(({ sessionId, lease }) => ({
      sessionId,
      fence: lease.fence,
      extendOnly: staleInOutage(lease, sentAt, this.outageSince),
    }));
    const outcomes = await this.leases.renew(sent, { node: this.node.id, url: this.node.url }).catch(() => undefined);
    const { reach, changed } = afterRenewal(this.state.reach, outcomes !== undefined, sentAt);
    this.state = { ...this.state, reach };
    if (changed && outcomes) this.logger.log('directory reachable again');
    if (changed && !outcomes) this.logger.warn('directory unreachable: sessions held here keep working; claims and forwarding answer 503');
    if (!outcomes) return;
    const trust = (lease: HeldLease) => Object.assign(lease, { validUntil: freshUntil(sentAt, this.settings.leaseMs), epoch });
    // A re-created lease, or one confirmed over a new connection, is trusted only once its fence is checked (docs/cluster.md#inv-lease-4).
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
    const lost = outcomes.filter((outcome: RenewOutcome) => outcome === 'lost').length;
    TURNS_CHANNELS.clusterLeaseRenewal.publish({ renewed: leases.length - lost, lost });
  }
}
