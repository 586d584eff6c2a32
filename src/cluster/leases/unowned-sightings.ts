import type { LeaseStore } from './lease-store.js';
import type { MonotonicClock } from './monotonic-clock.js';

/** Sessions a lookup found without a lease, for the sweep of sessions no node owns (docs/cluster.md#inv-lease-8). */
export class UnownedSightings {
  /** When each lookup's reply came (monotonic), over which connection. */
  private readonly seen = new Map<string, { at: number; epoch: number }>();

  constructor(
    private readonly leases: LeaseStore,
    private readonly clock: MonotonicClock,
    private readonly leaseMs: number,
    /** Sightings older than this are of no use (two sweeps). */
    private readonly keepMs: number,
  ) {}

  /** True at the second of two lookups a lease apart that found no lease; the first finds false. */
  async unowned(sessionId: string): Promise<boolean> {
    const sentAt = this.clock.now();
    const epoch = this.leases.directory.epoch;
    const leased = await this.leases.leased(sessionId).catch(() => undefined);
    const seen = this.seen.get(sessionId);
    this.seen.delete(sessionId);
    // Held, or unknown (unreachable, or the connection changed meanwhile): start over.
    if (leased !== false || this.leases.directory.epoch !== epoch) return false;
    if (seen && seen.epoch === epoch && sentAt - seen.at >= this.leaseMs) return true;
    // A sighting stays until the next lookup; one older than `keepMs` is dropped.
    for (const [id, { at }] of this.seen) if (at < sentAt - this.keepMs) this.seen.delete(id);
    this.seen.set(sessionId, seen && seen.epoch === epoch ? seen : { at: this.clock.now(), epoch });
    return false;
  }
}
