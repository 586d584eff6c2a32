import { createHash } from 'node:crypto';
import type { TurnStatus } from './turn-status.js';

/** A status as sent: its exact JSON text and a strong validator of it. */
export interface SerializedTurnStatus {
  // A string, not a Buffer: both adapters send a string as is (a Buffer would be JSON-encoded by Express).
  readonly body: string;
  readonly etag: string;
}

/**
 * Statuses held in memory are never mutated (a write-back, a start, a
 * terminal each make a new object), so an object's bytes never go stale: a
 * steady-state poll serializes and hashes nothing.
 */
const serialized = new WeakMap<TurnStatus, SerializedTurnStatus>();

/** The bytes and ETag of a status, computed once per status object. */
export function serializeTurnStatus(status: TurnStatus): SerializedTurnStatus {
  let entry = serialized.get(status);
  if (entry === undefined) {
    const body = JSON.stringify(status);
    entry = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    serialized.set(status, entry);
  }
  return entry;
}

/** True when an `If-None-Match` value names `etag` (or `*`); weak forms of it count too. */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const candidate = tag.trim();
    return candidate === '*' || candidate === etag || candidate === `W/${etag}`;
  });
}
