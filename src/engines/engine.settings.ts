import { flag, milliseconds, oneOf, text } from '../common/settings/readers.js';
import type { Settings } from '../common/settings/setting.js';

/** Which agent engine the daemon runs prompts through: `TURNS_*` settings. */
export const ENGINE_SETTINGS = {
  agent: { name: 'AGENT', ...oneOf(['echo', 'acp']), default: 'echo', doc: '`echo` (built in, offline) or `acp`' },
  agentCommand: { name: 'AGENT_COMMAND', ...text, doc: 'the ACP agent command line (required for `acp`), e.g. `qwen --acp`' },
  echoDelayMs: { name: 'ECHO_DELAY_MS', ...milliseconds(0), default: 0, doc: 'spread the echo answer over this many ms' },
  echoUsage: {
    name: 'ECHO_USAGE',
    ...flag,
    default: false,
    doc: 'the echo engine reports usage: one response, a token per 4 UTF-16 code units of prompt (input) and of answer (output)',
  },
} as const satisfies Settings;
