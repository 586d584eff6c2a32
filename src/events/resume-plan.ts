/** Where a session's ring stands when a stream opens. */
export interface RingState {
  /** This session's epoch. */
  epoch: string;
  /** Id of the newest event (0 before the first). */
  lastEventId: number;
  /** Id of the oldest event still in the ring (`lastEventId + 1` when it is empty). */
  earliestAvailableId: number;
}

/**
 * How a stream opens (docs/qwen-serve.md): live only, a replay after `afterId` that ends
 * with `replay_complete`, or a `state_resync_required` when the client's
 * cursor cannot be honoured (then live only: the client refetches its state).
 */
export type ResumePlan =
  | { kind: 'live' }
  | { kind: 'replay'; afterId: number }
  | { kind: 'resync'; reason: 'epoch_reset' | 'ring_evicted'; lastDeliveredId: number; earliestAvailableId: number };

/**
 * Decides the opening of a stream from the client's `Last-Event-ID` and
 * `X-Qwen-Event-Epoch`. An id of another epoch, or one this epoch never
 * reached (a restart without the epoch header), is an `epoch_reset`; an id
 * older than the ring's oldest retained neighbour is `ring_evicted`.
 */
export function planResume(ring: RingState, lastEventId: number | undefined, epoch: string | undefined): ResumePlan {
  if (lastEventId === undefined) return { kind: 'live' };
  const resync = (reason: 'epoch_reset' | 'ring_evicted') =>
    ({ kind: 'resync', reason, lastDeliveredId: lastEventId, earliestAvailableId: ring.earliestAvailableId }) as const;
  if ((epoch !== undefined && epoch !== ring.epoch) || lastEventId > ring.lastEventId) return resync('epoch_reset');
  // Ids up to earliestAvailableId - 1 may be delivered already; an older one missed evicted events.
  if (lastEventId < ring.earliestAvailableId - 1) return resync('ring_evicted');
  return { kind: 'replay', afterId: lastEventId };
}
