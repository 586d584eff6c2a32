/** Between the session id and the turn number in the peer's snapshot ids. */
const SEPARATOR = '########';

/** The peer's rewind snapshot id of a session's turn `turnIndex` (docs/qwen-serve.md). */
export function rewindSnapshotId(sessionId: string, turnIndex: number): string {
  return `${sessionId}${SEPARATOR}${turnIndex}`;
}

/**
 * The turn a rewind target names: a snapshot id of this session gives its
 * turn index; one of another session names no turn (`-1`); anything else is
 * a promptId (`undefined`).
 */
export function snapshotTurnIndex(sessionId: string, target: string): number | undefined {
  const at = target.lastIndexOf(SEPARATOR);
  if (at < 0) return undefined;
  const digits = target.slice(at + SEPARATOR.length);
  if (!/^\d{1,9}$/.test(digits)) return undefined;
  return target.slice(0, at) === sessionId ? Number(digits) : -1;
}
