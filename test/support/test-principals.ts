import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

/** The tokens of a tokens file {@link writeTokensFile} writes: each principal's bearer. */
export const TOKENS = { alice: 'alice-secret-token-0001', bob: 'bob-secret-token-0002', root: 'root-secret-token-0003' } as const;

/** A tokens file in `dir` naming alice, bob and the operator root; returns its path. */
export function writeTokensFile(dir: string): string {
  const path = join(dir, 'tokens');
  writeFileSync(path, `alice ${TOKENS.alice}\nbob ${TOKENS.bob}\nroot ${TOKENS.root} operator\n`);
  return path;
}

/** The bearer header of a principal of {@link writeTokensFile}'s file. */
export const bearer = (principal: keyof typeof TOKENS): Record<string, string> => ({ authorization: `Bearer ${TOKENS[principal]}` });
