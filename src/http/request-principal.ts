import type { IncomingMessage } from 'node:http';

/**
 * Who a request proved it is: the principal its bearer token names (the
 * daemon's `TURNS_TOKEN` or a line of its tokens file), or the one a Nest
 * host's own guard decided.
 *
 * @publicApi
 */
export interface Principal {
  /** Its name, as the tokens file gives it (`default` for `TURNS_TOKEN`). */
  readonly name: string;
  /** An operator reads and answers every principal's sessions. */
  readonly operator: boolean;
}

const PRINCIPAL = Symbol('nest-turn-status.principal');

type WithPrincipal = IncomingMessage & { [PRINCIPAL]?: Principal };

/** The raw Node request behind an Express request (itself) or a Fastify one (`raw`). */
const rawOf = (request: object): WithPrincipal => ((request as { raw?: object }).raw ?? request) as WithPrincipal;

/** Records the principal a request proved (the front door's token check, or a host's guard). */
export function setPrincipal(request: object, principal: Principal): void {
  rawOf(request)[PRINCIPAL] = principal;
}

/**
 * The principal recorded on a request (raw, Express or Fastify), or
 * `undefined` when none was: a daemon without tokens, where every caller is
 * the one implicit principal.
 */
export function principalOf(request: object): Principal | undefined {
  return rawOf(request)[PRINCIPAL];
}
