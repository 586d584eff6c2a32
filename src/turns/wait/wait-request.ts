import { apiError } from '../../errors/api-errors.js';

/** How long a turn request may be held, from `?waitMs=` or `Prefer: wait=S`. */
export interface WaitRequest {
  /** Milliseconds to hold the request at most; 0 answers at once. */
  waitMs: number;
  /** Set when the wait came from `Prefer`: the seconds applied, for `Preference-Applied`. */
  preferenceApplied?: number;
  /**
   * The request asked to be woken by a running turn's `activity` too
   * (`Prefer: wait=S; activity`, or `?activity=true`); otherwise only a
   * transition wakes it, never an agent update.
   */
  activity?: true;
}

const DIGITS = /^\d+$/;

/** The `wait` preference of a `Prefer` header (RFC 7240): its seconds and its parameters, if any. */
function preferWait(prefer: string | undefined): { seconds: string; params: string[] } | undefined {
  if (!prefer) return undefined;
  for (const part of prefer.split(',')) {
    const match = /^\s*wait\s*=\s*"?([^";\s]*)"?\s*(?:;(.*))?$/i.exec(part);
    if (match) return { seconds: match[1]!, params: (match[2] ?? '').split(';').map((p) => p.trim().toLowerCase()) };
  }
  return undefined;
}

/** `?activity=`: `true`/`1` or `false`/`0`; anything else is `400 invalid_activity`. */
function activityFlag(value: unknown): boolean {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw apiError('invalid_activity');
}

/**
 * Reads the wait of a turn request: `?waitMs=N` (an integer from 0 to
 * `maxWaitMs`) wins over `Prefer: wait=S` (seconds, capped at `maxWaitMs`);
 * neither means no wait. A malformed or out-of-range `waitMs`, or a
 * malformed `wait` preference, is `400 invalid_wait_ms`.
 */
export function parseWaitRequest(waitMs: unknown, prefer: string | undefined, maxWaitMs: number, activity?: unknown): WaitRequest {
  const preference = preferWait(prefer);
  const wantsActivity = activityFlag(activity) || preference?.params.includes('activity') === true;
  const request = readWait(waitMs, preference, maxWaitMs);
  return wantsActivity ? { ...request, activity: true } : request;
}

function readWait(waitMs: unknown, preference: ReturnType<typeof preferWait>, maxWaitMs: number): WaitRequest {
  if (waitMs !== undefined) {
    const raw = Array.isArray(waitMs) ? waitMs[0] : waitMs;
    const value = typeof raw === 'string' && DIGITS.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(value) || value > maxWaitMs) {
      throw apiError('invalid_wait_ms', { maxWaitMs }, { message: `waitMs must be an integer from 0 to ${maxWaitMs}` });
    }
    return { waitMs: value };
  }
  const seconds = preference?.seconds;
  if (seconds === undefined) return { waitMs: 0 };
  if (!DIGITS.test(seconds) || !Number.isSafeInteger(Number(seconds))) {
    throw apiError('invalid_wait_ms', { maxWaitMs }, { message: 'Prefer: wait must be a whole number of seconds' });
  }
  const applied = Math.min(Number(seconds), Math.floor(maxWaitMs / 1000));
  return { waitMs: applied * 1000, preferenceApplied: applied };
}
