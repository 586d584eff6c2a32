import { integer } from '../common/settings/readers.js';
import type { SettingValues, Settings } from '../common/settings/setting.js';

/** Bounds of the SSE event streams: runtime options, `TURNS_*` settings of the daemon. */
export const EVENT_SETTINGS = {
  maxSseStreams: {
    name: 'MAX_SSE_STREAMS',
    ...integer(1, 1_000_000),
    default: 1_000,
    limit: 'maxSseStreams',
    doc: 'open event streams per daemon; beyond → `503 too_many_streams`',
  },
  maxSseStreamsPerSession: {
    name: 'MAX_SSE_STREAMS_PER_SESSION',
    ...integer(1, 1_000_000),
    default: 16,
    limit: 'maxSseStreamsPerSession',
    doc: 'open event streams per session; beyond → `503 too_many_streams`',
  },
} as const satisfies Settings;

/** A comment this often keeps proxies from cutting an idle SSE stream (docs/qwen-serve.md). */
export const SSE_HEARTBEAT_MS = 15_000;

/** The event streams' bounds in force, defaults applied: the runtime provides them from its options. */
export interface EventOptions extends SettingValues<typeof EVENT_SETTINGS> {
  /** A `: heartbeat` comment goes on every stream this often, in ms. */
  sseHeartbeatMs: number;
}

export const EVENT_OPTIONS = Symbol('EVENT_OPTIONS');
