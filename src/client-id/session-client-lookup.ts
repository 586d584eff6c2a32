/**
 * What {@link ClientIdGuard} needs to know about sessions: whether one is live
 * here, and which client ids are registered on it. The turns module gets it
 * from the host's `BridgeOverlayProvider`.
 *
 * @publicApi
 */
export abstract class SessionClientLookup {
  /** True when the session is live in this process (never loads one). */
  abstract hasSession(sessionId: string): boolean;
  /** True when `clientId` was issued for (or registered on) this session. */
  abstract isClientRegistered(sessionId: string, clientId: string): boolean;
  /**
   * Whether a live session is `principal`'s, the name a host's
   * `TurnsModule` option `principal` read from the request (`undefined` when
   * it named none). Asked only when that option is set; `false` makes every
   * turn and prompt route of the session answer `404 session_not_found`, as
   * for a session that does not exist. Leave it out to let every principal in.
   */
  isSessionOf?(sessionId: string, principal: string | undefined): boolean;
}
