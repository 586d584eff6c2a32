import { resolve } from 'node:path';
import { flag, integer } from '../common/settings/readers.js';
import type { Settings } from '../common/settings/setting.js';
import { TRANSCRIPT_SCAN_LIMITS } from '../turns/rules/limits.js';

/** Where transcripts go and how large they may grow: runtime options, `TURNS_*` settings of the daemon. */
export const TRANSCRIPT_SETTINGS = {
  dataDir: {
    name: 'DATA_DIR',
    read: (raw: string, _: string, cwd: string) => resolve(cwd, raw),
    default: (cwd: string) => resolve(cwd, '.turns-data'),
    defaultText: '`./.turns-data`',
    doc: 'transcripts: `<dataDir>/<workspace>/chats/<sessionId>.jsonl`',
  },
  chatRecording: {
    name: 'CHAT_RECORDING',
    ...flag,
    default: true,
    doc: 'write transcripts and the [prompt ledger](ledger.md) (needed for restart lookup)',
  },
  maxTranscriptBytes: {
    name: 'MAX_TRANSCRIPT_BYTES',
    ...integer(1_024, 2 ** 53 - 1),
    default: TRANSCRIPT_SCAN_LIMITS.maxSnapshotBytes,
    limit: 'maxTranscriptBytes',
    doc: 'load, rewind and fork refuse a larger transcript → `413 transcript_too_large`',
  },
} as const satisfies Settings;
