import type { OverlayEntry } from '../overlay/terminal-overlay.js';
import { mergeTurnStatus } from '../merge-turn-status.js';
import type { LiveTurnStatus, SettledTurnStatus } from '../turn-status.js';

/** What the bounded sources hold for one session, read after the transcript scan (a fresh view). */
export interface TurnSources {
  live: readonly LiveTurnStatus[];
  overlay: readonly OverlayEntry[];
  /** The scan window's results, one per prompt (its newest record). */
  records: readonly SettledTurnStatus[];
}

/** Each listed prompt's status, and those that met their record here (to write back, as the exact route does). */
export interface CollectedTurns {
  turns: (LiveTurnStatus | SettledTurnStatus)[];
  combined: SettledTurnStatus[];
}

/**
 * One status per prompt, chosen as the exact route chooses it: live wins;
 * then an overlay entry already combined; then an overlay entry merged with
 * its record (`mergeTurnStatus`); then the overlay or the record alone.
 */
export function collectTurns({ live, overlay, records }: TurnSources): CollectedTurns {
  const turns = new Map<string, LiveTurnStatus | SettledTurnStatus>();
  for (const status of live) turns.set(status.promptId, status);
  const byPrompt = new Map<string, SettledTurnStatus>();
  for (const record of records) if (!byPrompt.has(record.promptId)) byPrompt.set(record.promptId, record);
  const combined: SettledTurnStatus[] = [];
  for (const entry of overlay) {
    const { promptId } = entry.status;
    if (turns.has(promptId)) continue;
    const record = entry.combined ? undefined : byPrompt.get(promptId);
    const answer = record ? mergeTurnStatus(entry.status, record) : entry.status;
    if (record) combined.push(answer);
    turns.set(promptId, answer);
  }
  for (const [promptId, record] of byPrompt) {
    if (turns.has(promptId)) continue;
    turns.set(promptId, record);
    combined.push(record);
  }
  return { turns: [...turns.values()], combined };
}
