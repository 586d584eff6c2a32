import { createHash } from 'node:crypto';
import { etagMatches, serializeTurnStatus } from '../serialized-turn-status.js';
import type { TurnStatusResponse } from '../turn-status-response.js';
import type { TurnPage } from './turn-page.js';

/**
 * The answer of `GET /session/:id/turns`, by the turn routes' HTTP conventions (docs/turn-routes.md#states-and-shapes).
 * The body joins each status's cached JSON text, so a page held in memory serializes none of them again.
 */
export function turnPageResponse(page: TurnPage, ifNoneMatch: string | undefined, readerClientId?: string): TurnStatusResponse {
  const turns = page.turns.map((status) => serializeTurnStatus(status, readerClientId).body).join(',');
  const next = page.nextPageToken === undefined ? '' : `,"nextPageToken":${JSON.stringify(page.nextPageToken)}`;
  const body = `{"turns":[${turns}]${next}}`;
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  const notModified = etagMatches(ifNoneMatch, etag);
  const headers: Record<string, string> = { 'Cache-Control': 'no-cache', ETag: etag };
  if (!notModified) headers['Content-Type'] = 'application/json; charset=utf-8';
  return { headers, body, etag, notModified };
}
