import type { AgentEngine } from '../engines/agent-engine.js';
import { EchoEngine } from '../engines/echo.engine.js';
import type { DaemonConfig } from './daemon-config.js';

/**
 * The engine the configuration names: the offline `echo` engine by default.
 * The ACP engine (and its SDK) is loaded only when chosen.
 */
export async function createEngine(
  config: Pick<DaemonConfig, 'agent' | 'agentCommand' | 'echoDelayMs' | 'echoUsage'>,
): Promise<AgentEngine> {
  if (config.agent !== 'acp') return new EchoEngine(config.echoDelayMs, config.echoUsage);
  const { AcpEngine } = await import('../acp/acp.engine.js');
  return new AcpEngine(config.agentCommand!);
}
