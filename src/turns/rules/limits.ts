/**
 * Field limits of the turn status object, in UTF-16 code units.
 *
 * @publicApi
 */
export const TURN_LIMITS = {
  promptText: 32_768,
  resultText: 32_768,
  errorMessage: 4_096,
  errorCode: 256,
  identifier: 256,
} as const;

/**
 * Bounds of a pending request's item (docs/permissions.md), in UTF-16 code units unless said: a tool's title; an
 * option's label and the kinds; an option id (the longest an answer may name); options offered; the item
 * as JSON, in bytes.
 */
export const INTERACTION_LIMITS = {
  title: 4_096,
  label: 256,
  optionId: 256,
  options: 16,
  itemBytes: 16 * 1024,
} as const;

/**
 * Code reported next to a truncated `resultText`.
 *
 * @publicApi
 */
export const RESULT_TEXT_TRUNCATED = 'RESULT_TEXT_TRUNCATED' as const;

/**
 * Terminal statuses kept in memory per session by the prompt bridge.
 *
 * @publicApi
 */
export const TERMINAL_OVERLAY_SIZE = 64;

/**
 * Bounds of one backward transcript scan.
 *
 * @publicApi
 */
export const TRANSCRIPT_SCAN_LIMITS = {
  recordsPerPage: 500,
  bytesPerPage: 4 * 1024 * 1024,
  maxPages: 10,
  maxSnapshotBytes: 256 * 1024 * 1024,
} as const;

/** Session ids minted or accepted by the daemon: a UUID, so no id can name a path. */
export const SESSION_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
