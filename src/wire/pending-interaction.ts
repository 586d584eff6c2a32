// A tool approval the agent waits for (SPEC §21), as it travels: on a running
// turn's status, in the session status, and in the answer a client sends.

/**
 * ACP's kinds of permission option.
 *
 * @publicApi
 */
export type PermissionOptionKind = 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';

/**
 * One choice the agent offers.
 *
 * @publicApi
 */
export interface PermissionOption {
  optionId: string;
  label?: string;
  /** ACP's kind; another daemon may send one outside these. */
  kind: PermissionOptionKind | (string & {});
}

/**
 * A pending request for permission (the peer's `pendingInteractions` item):
 * what the agent wants to do, and the options it offers.
 *
 * @publicApi
 */
export interface PendingPermissionRequest {
  requestId: string;
  kind: 'permission';
  /** ISO 8601. */
  createdAt: string;
  action: {
    /** The tool's kind (`execute`, `edit`, …). */
    type?: string;
    /** At most 4,096 UTF-16 code units. */
    title?: string;
    content?: unknown;
    locations?: unknown;
    input?: unknown;
    /** Present when `content` or `input` was dropped to keep the item within 16 KiB. */
    truncated?: true;
  };
  options: PermissionOption[];
}

/**
 * The answer to a request: one of its options, or `cancelled`. Sent as
 * `{outcome}` to `POST /session/:id/permission/:requestId`.
 *
 * @publicApi
 */
export type PermissionOutcome = { outcome: 'selected'; optionId: string } | { outcome: 'cancelled' };
