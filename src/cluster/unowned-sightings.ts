import type { LeaseDirectory } from './lease-directory.js';

/**
 * Sessions a lookup found without a lease, for the sweep of sessions no node
 * owns: one is taken for unowned only at the second of two lookups, a lease
 * apart over one connection, that found no lease — an owner alive renews (so
 * re-creates an emptied Redis's lease) every third of a lease.
 */
export class UnownedSightings {
  /** When each lookup's reply came (monotonic), over which connection. */
  private readonly seen = new Map<string, { at: number; epoch: number }>();

  constructor(
    private readonly directory: LeaseDirectory,
    private readonly leaseMs: number,
    /** Sightings older than this are of no use (two sweeps). */
    private readonly keepMs: number,
  ) {}

  /** True at the second of two lookups a lease apart that found no lease; the first finds false. */
  async unowned(sessionId: string): Promise<boolean> {
    const sentAt = this.directory.monotonic();
    const epoch = this.directory.epoch;
    const leased = await this.directory.leased(sessionId).catch(() => undefined);
    const seen = this.seen.get(sessionId);
    this.seen.delete(sessionId);
    // Held, or unknown (unreachable, or the connection changed meanwhile): start over.
    if (leased !== false || this.directory.epoch !== epoch) return false;
    if (seen && seen.epoch === epoch && sentAt - seen.at >= this.leaseMs) return true;
    // A sighting stays until the next lookup; one older than `keepMs` is dropped.
    for (const [id, { at }] of this.seen) if (at < sentAt - this.keepMs) this.seen.delete(id);
    this.seen.set(sessionId, seen && seen.epoch === epoch ? seen : { at: this.directory.monotonic(), epoch });
    return false;
  }
}
