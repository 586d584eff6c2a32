import { flag, oneOf } from '../common/settings/readers.js';
import type { Settings } from '../common/settings/setting.js';
import { LOG_LEVELS } from './log-level.js';

/** The daemon's log: a `TURNS_*` setting. */
export const LOGGING_SETTINGS = {
  log: {
    name: 'LOG',
    ...oneOf(LOG_LEVELS),
    default: 'info',
    doc: `log level: ${LOG_LEVELS.map((level) => `\`${level}\``).join(', ')} (\`info\`: one line per request, but polls answered 200 or 304 at \`debug\`); JSON lines, pretty on a terminal`,
  },
  logPolls: {
    name: 'LOG_POLLS',
    ...flag,
    default: false,
    doc: 'a request line at `info` for every poll answered 200 or 304 too (else at `debug`; metrics count every poll either way)',
  },
} as const satisfies Settings;
