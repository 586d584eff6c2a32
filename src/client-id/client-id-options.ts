/**
 * Header carrying the client id, unless configured otherwise.
 *
 * @publicApi
 */
export const DEFAULT_CLIENT_ID_HEADER = 'x-qwen-client-id';

/**
 * How {@link ClientIdGuard} reads and enforces client ids.
 *
 * @publicApi
 */
export abstract class ClientIdOptions {
  /** Header name, matched case-insensitively. @default 'x-qwen-client-id' */
  abstract readonly header: string;
  /** Refuse anonymous requests (no or empty header). @default false */
  abstract readonly requireClientId: boolean;
  /** Reads the principal a host's own guard decided (`TurnsModule` option `principal`). @default none: no ownership check */
  readonly principal?: (request: never) => string | undefined;
}
