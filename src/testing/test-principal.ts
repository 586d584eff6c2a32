/**
 * The header a kit test names a request's principal in.
 *
 * @publicApi
 */
export const TEST_PRINCIPAL_HEADER = 'x-test-principal';

/**
 * A `principal` option (of `createTurnsTestingApp` or `TurnsModule.forRoot`)
 * that reads the principal a test names in `X-Test-Principal`, standing in
 * for your own guard's (docs/testing.md): a test sets a request's principal
 * with `.set('X-Test-Principal', 'alice')`; no header is none.
 *
 * @publicApi
 */
export function principalFromTestHeader(request: { headers: Record<string, string | string[] | undefined> }): string | undefined {
  const named = request.headers[TEST_PRINCIPAL_HEADER];
  return typeof named === 'string' && named !== '' ? named : undefined;
}
