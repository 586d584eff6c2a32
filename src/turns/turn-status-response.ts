import { etagMatches, serializeTurnStatus } from './serialized-turn-status.js';
import type { TurnStatus } from './turn-status.js';

/** Seconds a client is asked to wait before polling a live prompt again. */
export const LIVE_POLL_HINT_SECONDS = 1;

/** What a turn route answers with: its headers, its body, and whether `If-None-Match` made it a 304 (then no body is sent). */
export interface TurnStatusResponse {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly etag: string;
  readonly notModified: boolean;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The HTTP conventions of the turn routes (docs/turn-routes.md#states-and-shapes), as one pure rule. The body is the
 * status's cached JSON text, as the reader (its client id, if any) may see it.
 */
export function turnStatusResponse(status: TurnStatus, ifNoneMatch: string | undefined, readerClientId?: string): TurnStatusResponse {
  const { body, etag } = serializeTurnStatus(status, readerClientId);
  const notModified = etagMatches(ifNoneMatch, etag);
  const headers: Record<string, string> = { 'Cache-Control': 'no-cache', ETag: etag };
  if (status.state === 'queued' || status.state === 'running') headers['Retry-After'] = String(LIVE_POLL_HINT_SECONDS);
  // A 304 has no body, so no type.
  if (!notModified) headers['Content-Type'] = JSON_TYPE;
  return { headers, body, etag, notModified };
}
