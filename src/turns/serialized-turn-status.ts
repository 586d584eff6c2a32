import { createHash } from 'node:crypto';
import { clientPseudonym } from '../client-id/client-pseudonym.js';
import type { TurnStatus } from './turn-status.js';

/** A status as sent: its exact JSON text and a strong validator of it. */
export interface SerializedTurnStatus {
  // A string, not a Buffer: both adapters send a string as is (a Buffer would be JSON-encoded by Express).
  readonly body: string;
  readonly etag: string;
}

/** The bytes everyone reads, and (made on its first read) the ones the prompt's originator reads. */
interface Serialized extends SerializedTurnStatus {
  own?: SerializedTurnStatus;
}

/**
 * Statuses held in memory are never mutated (a write-back, a start, a
 * terminal each make a new object), so an object's bytes never go stale: a
 * steady-state poll serializes and hashes nothing, whoever reads.
 */
const serialized = new WeakMap<TurnStatus, Serialized>();

const etagOf = (body: string) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

const originatorOf = (status: TurnStatus): string | undefined => (status.state === 'idle' ? undefined : status.originatorClientId);

/**
 * A status as anyone but its originator sees it: `originatorClientId` as the
 * client's pseudonym (docs/security.md#client-ids-are-capabilities).
 */
export function pseudonymousStatus<T extends TurnStatus>(status: T): T {
  const id = originatorOf(status);
  return id === undefined ? status : { ...status, originatorClientId: clientPseudonym(status.sessionId, id) };
}

/**
 * The bytes and ETag of a status for one reader, computed once per status
 * object and form: the originator (its request carries the id the prompt was
 * admitted with) reads its own id, everyone else its pseudonym.
 */
export function serializeTurnStatus(status: TurnStatus, readerClientId?: string): SerializedTurnStatus {
  let entry = serialized.get(status);
  if (entry === undefined) {
    const body = JSON.stringify(pseudonymousStatus(status));
    entry = { body, etag: etagOf(body) };
    serialized.set(status, entry);
  }
  const id = originatorOf(status);
  if (readerClientId === undefined || readerClientId !== id) return entry;
  return (entry.own ??= ownView(entry.body, status.sessionId, id));
}

/**
 * The originator's bytes without a second serialization: the pseudonym's
 * field swapped for the id. A pseudonym is no client id and JSON escapes any
 * quote inside a text, so that sequence is the field and nothing else.
 */
function ownView(body: string, sessionId: string, id: string): SerializedTurnStatus {
  const field = '"originatorClientId":';
  const own = body.replace(field + JSON.stringify(clientPseudonym(sessionId, id)), field + JSON.stringify(id));
  return { body: own, etag: etagOf(own) };
}

/** True when an `If-None-Match` value names `etag` (or `*`); weak forms of it count too. */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const candidate = tag.trim();
    return candidate === '*' || candidate === etag || candidate === `W/${etag}`;
  });
}
