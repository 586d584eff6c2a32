/** Whether the directory answered the last renewal; `since`: when the first failed renewal of this outage was sent (monotonic). */
export type DirectoryReach = { reachable: true } | { reachable: false; since: number };

/**
 * The reach after a renewal sent at `sentAt` was answered or not, and whether that changed it (logged once a change):
 * an outage starts at its first failed renewal, never later (docs/cluster.md#inv-lease-2).
 */
export function afterRenewal(reach: DirectoryReach, answered: boolean, sentAt: number): { reach: DirectoryReach; changed: boolean } {
  if (answered) return { reach: { reachable: true }, changed: !reach.reachable };
  return reach.reachable ? { reach: { reachable: false, since: sentAt }, changed: true } : { reach, changed: false };
}
