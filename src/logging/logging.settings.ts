import { oneOf } from '../common/settings/readers.js';
import type { Settings } from '../common/settings/setting.js';
import { LOG_LEVELS } from './log-level.js';

/** The daemon's log: a `TURNS_*` setting. */
export const LOGGING_SETTINGS = {
  log: {
    name: 'LOG',
    ...oneOf(LOG_LEVELS),
    default: 'info',
    doc: `log level: ${LOG_LEVELS.map((level) => `\`${level}\``).join(', ')} (\`info\`: one line per request); JSON lines, pretty on a terminal`,
  },
} as const satisfies Settings;
