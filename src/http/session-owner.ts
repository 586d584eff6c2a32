import type { Principal } from './request-principal.js';

/**
 * Whether `principal` may see a session its creator's principal `owner` owns
 * (docs/security.md#ownership): an operator sees every session; anyone else
 * only the sessions of its own name. A session made with no principal (a
 * daemon without tokens) has no owner, and is seen by a request with no
 * principal and by operators only: turning tokens on hides the tokenless
 * sessions from every non-operator, rather than handing them to all.
 *
 * @publicApi
 */
export function mayAccessSession(owner: string | undefined, principal: Principal | undefined): boolean {
  return principal?.operator === true || owner === principal?.name;
}
