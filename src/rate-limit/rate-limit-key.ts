import { hash } from 'node:crypto';

/**
 * The bucket key of who is asking: the principal the request proved
 * (`undefined` on a tokenless daemon: its one implicit principal) and a
 * client id the daemon issued, or none — the principal's anonymous traffic.
 * The id enters as a digest: ids are secrets, and the key may sit in Redis.
 */
export function rateLimitKey(principal: string | undefined, issuedClientId: string | undefined): string {
  const client = issuedClientId === undefined ? null : hash('sha256', issuedClientId, 'base64url');
  return JSON.stringify([principal ?? null, client]);
}

/** The principal's anonymous key: where an id nobody was issued, and traffic past the key bound, count. */
export function anonymousKey(principal: string | undefined): string {
  return rateLimitKey(principal, undefined);
}
