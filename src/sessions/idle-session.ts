/** What the idle reaper knows of a live session (docs/operating.md#idle-sessions). */
export interface SessionActivity {
  /** When the session became live (created or loaded), epoch ms. */
  liveSince: number;
  newestEventAt?: number;
  lastHeartbeatAt?: number;
  /** When its last event stream ended. */
  streamEndedAt?: number;
  openStreams: number;
  /** Queued and running prompts. */
  pendingPrompts: number;
  pendingApprovals: number;
}

/**
 * Since when the session has been idle (epoch ms): the newest of its start,
 * event, heartbeat and stream end; `undefined` while it is watched (an open
 * stream) or busy (a prompt queued or running, an approval pending).
 */
export function idleSince(activity: SessionActivity): number | undefined {
  if (activity.openStreams > 0 || activity.pendingPrompts > 0 || activity.pendingApprovals > 0) return undefined;
  return Math.max(activity.liveSince, activity.newestEventAt ?? 0, activity.lastHeartbeatAt ?? 0, activity.streamEndedAt ?? 0);
}

/** Whether a session idle since `since` is due to be reaped at `now` (a timeout of 0 never reaps). */
export function idleTooLong(since: number | undefined, now: number, timeoutMs: number): boolean {
  return timeoutMs > 0 && since !== undefined && now - since >= timeoutMs;
}

/** How often the reaper looks: a quarter of the timeout, from 1 s to 1 min (a session goes at most that late). */
export function reapEveryMs(timeoutMs: number): number {
  return Math.min(60_000, Math.max(1_000, Math.floor(timeoutMs / 4)));
}
