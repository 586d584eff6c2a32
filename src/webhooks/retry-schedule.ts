import { parseHttpDate } from '../http/http-date.js';

/**
 * The retry schedule of docs/webhooks.md at its default base (5 s): the cap of the
 * wait before attempt n+1 after n failures. `TURNS_WEBHOOK_RETRY_BASE_MS`
 * scales all of it.
 */
export const RETRY_SCHEDULE_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000] as const;
const DEFAULT_BASE_MS = RETRY_SCHEDULE_MS[0];

/** The longest a receiver's `Retry-After` is waited: the schedule's last step. */
export const MAX_RETRY_AFTER_MS = RETRY_SCHEDULE_MS[RETRY_SCHEDULE_MS.length - 1];

/** The schedule's step after `failures` failed attempts (1 or more), scaled to the base. */
function stepMs(failures: number, baseMs: number): number {
  const step = RETRY_SCHEDULE_MS[Math.min(Math.max(failures, 1), RETRY_SCHEDULE_MS.length) - 1]!;
  return (step / DEFAULT_BASE_MS) * baseMs;
}

/**
 * The wait before the next attempt after `failures` failed ones (1 or more):
 * full jitter, uniform in [0, step] — so receivers coming back are not hit by
 * every sender at once.
 */
export function retryDelayMs(failures: number, baseMs: number, random: () => number = Math.random): number {
  return Math.floor(random() * stepMs(failures, baseMs));
}

/**
 * The least wait a receiver's `Retry-After` can ask for after `failures`
 * failed attempts: a tenth of the schedule's step (a tenth of the base after
 * the first), so an answer of `0` on every attempt cannot spend them all in
 * seconds.
 */
export function retryAfterFloorMs(failures: number, baseMs: number): number {
  return Math.ceil(stepMs(failures, baseMs) / 10);
}

/**
 * A receiver's `Retry-After` as a wait in ms: delay-seconds (digits only) or
 * an HTTP-date; `undefined` when absent or anything else (`-1`, `1.5`,
 * `soon`). At most {@link MAX_RETRY_AFTER_MS}.
 */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const trimmed = header.trim();
  let ms: number;
  if (/^\d+$/.test(trimmed)) ms = Number(trimmed) * 1000;
  else {
    const date = parseHttpDate(trimmed, now);
    if (date === undefined) return undefined;
    ms = Math.max(0, date - now);
  }
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}
