/**
 * The retry schedule of SPEC §12 at its default base (5 s): the cap of the
 * wait before attempt n+1 after n failures. `TURNS_WEBHOOK_RETRY_BASE_MS`
 * scales all of it.
 */
export const RETRY_SCHEDULE_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000] as const;
const DEFAULT_BASE_MS = RETRY_SCHEDULE_MS[0];

/** The longest a receiver's `Retry-After` is waited: the schedule's last step. */
export const MAX_RETRY_AFTER_MS = RETRY_SCHEDULE_MS[RETRY_SCHEDULE_MS.length - 1];

/**
 * The wait before the next attempt after `failures` failed ones (1 or more):
 * full jitter, uniform in [0, cap] — so receivers coming back are not hit by
 * every sender at once.
 */
export function retryDelayMs(failures: number, baseMs: number, random: () => number = Math.random): number {
  const step = RETRY_SCHEDULE_MS[Math.min(Math.max(failures, 1), RETRY_SCHEDULE_MS.length) - 1]!;
  const cap = (step / DEFAULT_BASE_MS) * baseMs;
  return Math.floor(random() * cap);
}

/**
 * A receiver's `Retry-After` (seconds, or an HTTP date) as a wait in ms, or
 * `undefined` when absent or unreadable; at most {@link MAX_RETRY_AFTER_MS}.
 */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const trimmed = header.trim();
  let ms: number;
  if (/^\d+$/.test(trimmed)) ms = Number(trimmed) * 1000;
  else {
    const date = Date.parse(trimmed);
    if (Number.isNaN(date)) return undefined;
    ms = Math.max(0, date - now);
  }
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}
