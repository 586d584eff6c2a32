import { createHmac, randomBytes } from 'node:crypto';

/** What every pseudonym starts with: a character no client id may hold, so the guard refuses one as malformed. */
export const PSEUDONYM_PREFIX = '~';

/** Characters of the keyed hash after the prefix: 96 bits, base64url. */
const HASH_CHARS = 16;

// Per process: a pseudonym never reveals its id, even a host's short guessable one (docs/security.md#client-ids-are-capabilities).
const KEY = randomBytes(32);

/**
 * How a client is named to everyone but itself (docs/security.md#client-ids-are-capabilities):
 * `~` and a keyed hash of the session and the id, stable for that client
 * within the session while this process lives, and never a well-formed
 * client id. A pseudonym given in place of an id comes back unchanged.
 *
 * @publicApi
 */
export function clientPseudonym(sessionId: string, clientId: string): string {
  if (isPseudonym(clientId)) return clientId;
  const hash = createHmac('sha256', KEY).update(sessionId).update('\0').update(clientId).digest('base64url');
  return PSEUDONYM_PREFIX + hash.slice(0, HASH_CHARS);
}

/** True when `value` has a pseudonym's form. @publicApi */
export function isPseudonym(value: string): boolean {
  return value.startsWith(PSEUDONYM_PREFIX);
}

/** `item` as `readerClientId` sees it: its `originatorClientId` as issued to that client itself, else as a pseudonym. */
export function originatorSeenBy<T extends { originatorClientId?: string }>(sessionId: string, item: T, readerClientId?: string): T {
  const id = item.originatorClientId;
  if (id === undefined || id === readerClientId) return item;
  return { ...item, originatorClientId: clientPseudonym(sessionId, id) };
}
