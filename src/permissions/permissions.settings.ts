import { milliseconds, oneOf } from '../common/settings/readers.js';
import type { SettingValues, Settings } from '../common/settings/setting.js';
import type { PermissionPolicy, PermissionResponder } from './permission-policy.js';

/** Human-in-the-loop tool approval (docs/permissions.md): runtime options, `TURNS_*` settings of the daemon. */
export const PERMISSION_SETTINGS = {
  permissionPolicy: {
    name: 'PERMISSION_POLICY',
    ...oneOf<PermissionPolicy>(['ask', 'allow', 'deny']),
    default: 'ask' as PermissionPolicy,
    doc: "an agent's request to run a tool: `ask` holds the turn until a client answers; `allow` approves every tool call unseen; `deny` refuses each",
  },
  permissionResponder: {
    name: 'PERMISSION_RESPONDER',
    ...oneOf<PermissionResponder>(['first-responder', 'designated']),
    default: 'first-responder' as PermissionResponder,
    doc: "under `ask`, who may answer: any client of the session (the first answer wins), or `designated`: only the prompt's originator",
  },
  permissionTimeoutMs: {
    name: 'PERMISSION_TIMEOUT_MS',
    ...milliseconds(),
    doc: 'under `ask`, a request nobody answered in this time is refused (unset: it waits for an answer or the end of its turn)',
  },
} as const satisfies Settings;

/** The values of `PERMISSION_SETTINGS` in force (defaults applied). */
export type PermissionOptions = SettingValues<typeof PERMISSION_SETTINGS>;

export const PERMISSION_OPTIONS = Symbol('PERMISSION_OPTIONS');
