import { AcpEngine } from '../engines/acp.engine.js';
import type { AgentEngine } from '../engines/agent-engine.js';
import { EchoEngine } from '../engines/echo.engine.js';
import type { DaemonConfig } from './daemon-config.js';

/** The engine the configuration names: the offline `echo` engine by default. */
export function createEngine(config: Pick<DaemonConfig, 'agent' | 'agentCommand' | 'echoDelayMs'>): AgentEngine {
  return config.agent === 'acp' ? new AcpEngine(config.agentCommand!) : new EchoEngine(config.echoDelayMs);
}
