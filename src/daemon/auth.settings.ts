import { resolve } from 'node:path';
import { flag, text } from '../common/settings/readers.js';
import type { Settings } from '../common/settings/setting.js';

/** Who may call the daemon: its tokens, and whether loopback needs one too (see docs/security.md). */
export const AUTH_SETTINGS = {
  token: {
    name: 'TOKEN',
    ...text,
    doc: 'bearer token for every route but `/health`: the principal `default`, an operator (see [Security](security.md#principals))',
  },
  tokensFile: {
    name: 'TOKENS_FILE',
    read: (raw: string, _: string, cwd: string) => resolve(cwd, raw),
    doc: 'file of principals, a line each: `<principal> <token>` or `<principal> sha256:<hex>`, then optionally `operator`; besides `TURNS_TOKEN`; re-read on `SIGHUP`; a bad file refuses to start (see [Security](security.md#principals))',
  },
  requireAuth: {
    name: 'REQUIRE_AUTH',
    ...flag,
    switch: true,
    default: false,
    doc: 'every route but `/health` needs a token, loopback included; refuses to start without `TURNS_TOKEN` or `TURNS_TOKENS_FILE`',
  },
} as const satisfies Settings;
