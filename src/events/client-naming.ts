import { clientPseudonym } from '../client-id/client-pseudonym.js';

/** The fields of an event, and of its `data`, that name a client (the originator, a voter, a refused responder). */
const NAMING_FIELDS = ['originatorClientId', 'voterClientId', 'clientId'] as const;

/**
 * `fields` with each client it names replaced by the client's pseudonym
 * (docs/security.md#client-ids-are-capabilities), the same object when it
 * names none; `named` collects each pseudonym with its id.
 */
export function withPseudonyms<T extends object>(sessionId: string, fields: T, named: Map<string, string>): T {
  let copy: Record<string, unknown> | undefined;
  for (const key of NAMING_FIELDS) {
    const id = (fields as Record<string, unknown>)[key];
    if (typeof id !== 'string') continue;
    const pseudonym = clientPseudonym(sessionId, id);
    if (pseudonym === id) continue;
    named.set(pseudonym, id);
    copy = { ...(copy ?? fields), [key]: pseudonym };
  }
  return (copy as T | undefined) ?? fields;
}

/**
 * A frame as one reader receives it: as published (an object the stream
 * serializes) unless it names the reader, then its JSON text with the
 * reader's pseudonym swapped for its id. A pseudonym is no client id and JSON
 * escapes any quote inside a text, so its quoted form is only ever that name.
 */
export function frameForReader<F extends object>(
  frame: F,
  named: ReadonlyMap<string, string> | undefined,
  readerClientId?: string,
): F | string {
  if (named === undefined || readerClientId === undefined) return frame;
  let text: string | undefined;
  for (const [pseudonym, id] of named) {
    if (id === readerClientId) text = (text ?? JSON.stringify(frame)).replaceAll(JSON.stringify(pseudonym), JSON.stringify(id));
  }
  return text ?? frame;
}
