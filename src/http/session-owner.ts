import type { Principal } from './request-principal.js';

/**
 * Whether `principal` may see a session `owner` created: an operator sees all, anyone else its own, and a session
 * with no owner only a request with no principal (docs/security.md#ownership).
 *
 * @publicApi
 */
export function mayAccessSession(owner: string | undefined, principal: Principal | undefined): boolean {
  return principal?.operator === true || owner === principal?.name;
}
