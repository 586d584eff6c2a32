import { milliseconds, oneOf, text } from '../common/settings/readers.js';
import type { Settings } from '../common/settings/setting.js';

/** Which agent engine the daemon runs prompts through: `TURNS_*` settings. */
export const ENGINE_SETTINGS = {
  agent: { name: 'AGENT', ...oneOf(['echo', 'acp']), default: 'echo', doc: '`echo` (built in, offline) or `acp`' },
  agentCommand: { name: 'AGENT_COMMAND', ...text, doc: 'the ACP agent command line (required for `acp`), e.g. `qwen --acp`' },
  echoDelayMs: { name: 'ECHO_DELAY_MS', ...milliseconds(0), default: 0, doc: 'spread the echo answer over this many ms' },
} as const satisfies Settings;
