import type { FrontStage } from '../../src/http/front-door.js';
import { setPrincipal } from '../../src/http/request-principal.js';

/** The test header that names a request's principal: `alice`, or `op:root` for an operator. */
export const PRINCIPAL_HEADER = 'x-test-principal';

/**
 * A front door stage (`DaemonOverrides.authentication`) that takes the
 * principal a test names in {@link PRINCIPAL_HEADER}, as a token check would
 * set the one its token proves; no header is no principal.
 */
export const testPrincipals: FrontStage = (request, next) => {
  const named = request.req.headers[PRINCIPAL_HEADER];
  if (typeof named === 'string') {
    const operator = named.startsWith('op:');
    setPrincipal(request.req, { name: operator ? named.slice(3) : named, operator });
  }
  next();
};

/** A principal's headers for supertest's `.set()`. */
export const as = (principal: string | undefined): Record<string, string> =>
  principal === undefined ? {} : { [PRINCIPAL_HEADER]: principal };
