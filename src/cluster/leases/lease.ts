/**
 * A session's owner as the directory records it. `fence` comes from one counter that only grows: a later claim always
 * carries a larger number (docs/cluster.md#inv-lease-1).
 *
 * @publicApi
 */
export interface Lease {
  node: string;
  url: string;
  fence: number;
}

/**
 * What a renewal did to one lease: extended it, re-created it (it was gone, so the recorded fence decides:
 * docs/cluster.md#inv-lease-4), or found it another node's. @publicApi
 */
export type RenewOutcome = 'extended' | 'recreated' | 'lost';

/**
 * Outcome of a claim: this node's fence, or the lease another node holds. A won claim also says what decides whether
 * the previous owner is asked to let go (docs/cluster.md#inv-lease-5): Redis had lost its fence counter (`reset`), Redis
 * lost its data less than a lease ago (`emptied`), the previous owner's heartbeat was there (`previousAlive`), this
 * node's own was (`selfAlive`).
 *
 * @publicApi
 */
export type ClaimResult =
  { won: true; fence: number; reset: boolean; emptied: boolean; previousAlive: boolean; selfAlive: boolean } | { won: false; owner: Lease };
