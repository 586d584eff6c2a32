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
}
