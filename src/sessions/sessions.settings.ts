import { isAbsolute, resolve } from 'node:path';
import { integer, list, milliseconds } from '../common/settings/readers.js';
import { ConfigError, type SettingValues, type Settings } from '../common/settings/setting.js';
import type { TranscriptScanLimits } from '../transcript/jsonl-transcript-scan.service.js';
import type { Workspace } from './workspace.js';

const workspaceList = list((path, variable) => {
  if (!isAbsolute(path)) throw new ConfigError(`${variable} entries must be absolute paths (got "${path}")`);
  return resolve(path);
});

/** Where sessions live and how many: runtime options, `TURNS_*` settings of the daemon. */
export const SESSION_SETTINGS = {
  workspaces: {
    name: 'WORKSPACES',
    read: (raw: string, variable: string, cwd: string): string[] => workspaceList.read(raw, variable, cwd) ?? [cwd],
    default: (cwd: string): string[] => [cwd],
    defaultText: 'current directory',
    doc: 'comma-separated absolute paths; the first is primary',
  },
  maxSessions: {
    name: 'MAX_SESSIONS',
    ...integer(1, 1_000_000),
    // The peer's cap: each session of the ACP engine holds an agent process (docs/operating.md#sizing).
    default: 32,
    limit: 'maxSessions',
    doc: 'live sessions at once; beyond → `503 too_many_sessions` + `Retry-After` (attaching to a live one still works)',
  },
  sessionIdleTimeoutMs: {
    name: 'SESSION_IDLE_TIMEOUT_MS',
    ...milliseconds(0),
    default: 1_800_000,
    limit: 'sessionIdleTimeoutMs',
    doc: 'close a session idle this long (no event stream, heartbeat, prompt or pending approval), as `DELETE` does; 0 never',
  },
} as const satisfies Settings;

/** What sessions run with, defaults applied: the runtime provides it from its options. */
export interface SessionOptions extends Pick<SettingValues<typeof SESSION_SETTINGS>, 'maxSessions' | 'sessionIdleTimeoutMs'> {
  /** Workspaces sessions belong to; the first is primary. */
  readonly workspaces: readonly Workspace[];
  readonly primary: Workspace;
  /** Root of the transcripts and ledgers. */
  readonly dataDir: string;
  /** Bounds of one backward transcript scan (a load reads its idempotency keys back). */
  readonly scanLimits: TranscriptScanLimits;
}

export const SESSION_OPTIONS = Symbol('SESSION_OPTIONS');
